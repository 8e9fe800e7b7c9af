import { main } from "./lib/cli/main.ts";

Deno.exit(await main(Deno.args));
