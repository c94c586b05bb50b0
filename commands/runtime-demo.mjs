// A text module for trying the text layer: `load commands/runtime-demo`, then `runtime-echo hello`.
// It reads no variables and reaches no service. See src/text/module-contract.ts for the contract.

export const name = "runtime-demo";
export const description = "A demo module: runtime-echo prints its arguments (and stdin when given -).";
export const variables = [];
export const commands = ["runtime-echo"];

export function setup(host) {
  return {
    commands: [
      {
        name: "runtime-echo",
        summary: "print the arguments separated by spaces; `-` prints stdin",
        usage: "runtime-echo [TEXT…] | runtime-echo -",
        async run(args, io) {
          if (args.length === 1 && args[0] === "-") return host.output.text(io.stdin);
          return host.output.text(`${args.join(" ")}\n`);
        },
      },
    ],
  };
}
