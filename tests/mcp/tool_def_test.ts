/**
 * A parameter that carries its own check (`validated`): the validator runs when the arguments are
 * parsed, its refusal is its own message word for word, and the listed schema is the plain type.
 */
import { z } from "zod";
import { assert, assertEquals } from "../assert.ts";
import { argumentRefusal, validated } from "../../lib/mcp/tool_def.ts";
import { validateSerial } from "../../lib/core/validation.ts";
import { invalidParams, isToolError } from "../../lib/core/errors.ts";

const params = {
  device_serial: validated(z.string(), (v) => validateSerial(v)).optional().describe("Serial"),
  count: z.number().int().min(1).max(5).optional().describe("Count"),
};

function validatorMessage(value: string): string {
  try {
    validateSerial(value);
  } catch (e) {
    if (isToolError(e)) return e.message;
  }
  throw new Error(`${value} is a valid serial`);
}

Deno.test("validated: a bad value is refused with the validator's own message", () => {
  const r = z.object(params).safeParse({ device_serial: "a;reboot" });
  assert(!r.success);
  assertEquals(argumentRefusal("t", r.error.issues).message, validatorMessage("a;reboot"));
});

Deno.test("validated: a good value passes as the validator returns it; absent stays absent", () => {
  assertEquals(z.object(params).parse({ device_serial: "emulator-5554" }), {
    device_serial: "emulator-5554",
  });
  assertEquals(z.object(params).parse({}), {});
});

Deno.test("argumentRefusal: other issues name where they are and the tool", () => {
  const r = z.object(params).safeParse({ count: 9 });
  assert(!r.success);
  const m = argumentRefusal("my_tool", r.error.issues).message;
  assert(m.startsWith("Invalid arguments for my_tool: count: "), m);
});

Deno.test("validated: an error that is not a refusal is not turned into one", () => {
  const boom = validated(z.string(), () => {
    throw new Error("bug");
  });
  let thrown: unknown = null;
  try {
    boom.parse("x");
  } catch (e) {
    thrown = e;
  }
  assert(thrown instanceof Error && thrown.message === "bug", "the bug propagates");
  const other = validated(z.string(), () => {
    throw invalidParams("no");
  });
  assertEquals(argumentRefusal("t", other.safeParse("x").error!.issues).message, "no");
});

Deno.test("validated: the listed JSON Schema is the plain type with its description", () => {
  const s = z.toJSONSchema(z.object(params).strict(), { io: "input" }) as {
    properties: Record<string, unknown>;
  };
  assertEquals(s.properties.device_serial, { type: "string", description: "Serial" });
});
