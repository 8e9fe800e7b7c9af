/** A real child process (`deno`) that runs until its stdin closes, for process-probing tests. */
export function startIdleChild() {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "for await (const _ of Deno.stdin.readable) {}"],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    await child.stdin.close();
    await child.status;
  };
  return { pid: child.pid, end, [Symbol.asyncDispose]: end };
}
