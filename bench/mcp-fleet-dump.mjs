// Lists each official MCP server's tools over stdio (tools/list only; no tool is called).
import { Client } from "/work/wt-19/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js";
import { StdioClientTransport } from "/work/wt-19/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js";
import { writeFileSync, readFileSync } from "node:fs";
const F = "/tmp/fleet19/node_modules/@modelcontextprotocol/";
const W = "/work/wt-19/node_modules/@modelcontextprotocol/";
const servers = [
  ["memory", W + "server-memory/dist/index.js", [], {}],
  ["filesystem", W + "server-filesystem/dist/index.js", ["/tmp"], {}],
  ["everything", W + "server-everything/dist/index.js", [], {}],
  ["github", F + "server-github/dist/index.js", [], { GITHUB_PERSONAL_ACCESS_TOKEN: "x" }],
  ["gitlab", F + "server-gitlab/dist/index.js", [], { GITLAB_PERSONAL_ACCESS_TOKEN: "x" }],
  ["slack", F + "server-slack/dist/index.js", [], { SLACK_BOT_TOKEN: "x", SLACK_TEAM_ID: "x" }],
  ["google-maps", F + "server-google-maps/dist/index.js", [], { GOOGLE_MAPS_API_KEY: "x" }],
  ["postgres", F + "server-postgres/dist/index.js", ["postgresql://127.0.0.1:1/none"], {}],
  ["redis", F + "server-redis/dist/index.js", ["redis://127.0.0.1:1"], {}],
  ["brave-search", F + "server-brave-search/dist/index.js", [], { BRAVE_API_KEY: "x" }],
  ["gdrive", F + "server-gdrive/dist/index.js", [], {}],
  ["sequential-thinking", F + "server-sequential-thinking/dist/index.js", [], {}],
  ["puppeteer", F + "server-puppeteer/dist/index.js", [], {}],
  ["aws-kb-retrieval", F + "server-aws-kb-retrieval/dist/index.js", [], { AWS_ACCESS_KEY_ID: "x", AWS_SECRET_ACCESS_KEY: "x", AWS_REGION: "us-east-1" }],
  ["everart", F + "server-everart/dist/index.js", [], { EVERART_API_KEY: "x" }],
];
const tools = [], info = [];
for (const [name, bin, args, env] of servers) {
  const pkg = JSON.parse(readFileSync(bin.replace(/dist\/index\.js$/, "package.json"), "utf8"));
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, ...args], env: { PATH: process.env.PATH, HOME: "/tmp", ...env }, stderr: "ignore" });
  const client = new Client({ name: "dump", version: "1" });
  try {
    await Promise.race([client.connect(transport), new Promise((_, r) => setTimeout(() => r(new Error("timeout")), 15000))]);
    const list = await client.listTools();
    info.push({ server: name, package: pkg.name, version: pkg.version, license: pkg.license, serverInfo: client.getServerVersion(), instructions: client.getInstructions() ?? null, tools: list.tools.length });
    for (const t of list.tools) tools.push({ name: t.name, ...(t.title ? { title: t.title } : {}), description: t.description ?? "", inputSchema: t.inputSchema, server: name });
    console.error(name, list.tools.length);
  } catch (e) { console.error("FAIL", name, e.message); }
  await client.close().catch(() => {});
}
writeFileSync("/tmp/fleet19/tools.json", JSON.stringify(tools, null, 1));
writeFileSync("/tmp/fleet19/servers.json", JSON.stringify(info, null, 1));
