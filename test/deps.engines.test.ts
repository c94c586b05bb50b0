import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

/**
 * What `npm ci` of this repo installs (the lockfile; not the dev tools, not the optional packages
 * npm skips) must declare support for the oldest Node the project supports (package.json
 * `engines.node`): OpenTelemetry's 3.x SDK line and the 0.300+ exporters need Node ≥ 22.15, and
 * `npm ci` on an older Node 20 then warns EBADENGINE for each.
 * A later `npm install` that moves one to such a line fails here, naming the package.
 *
 * A user's `npm install agent-tools-runtime` never reads this lockfile: it resolves package.json's
 * ranges itself. For the OpenTelemetry packages those are `~` ranges (patch releases only), checked
 * below, so it stays on the minor lines checked here; every release in them supported Node 20.18.1
 * when they were chosen (`npm view <pkg>@'~x.y.z' engines`).
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), "utf8")) as Record<string, unknown>;

type Version = [number, number, number];

interface LockEntry {
  version: string;
  dev?: boolean;
  optional?: boolean;
  engines?: { node?: string };
}

function parseVersion(text: string): Version {
  const parts = text.split(".").map(Number);
  if (parts.length > 3 || parts.some((n) => !Number.isInteger(n))) throw new Error(`not a version: ${text}`);
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * Whether `version` is in a node-semver range of the forms packages use for `engines.node`
 * (`>=20.6.0`, `^18.19.0 || >=20.6.0`, `20 || >=22`, `~20.1`); other syntax throws, naming it.
 */
function rangeAdmits(range: string, version: Version): boolean {
  return range.split("||").some((alternative) => {
    const comparators = [...alternative.matchAll(/(>=|<=|>|<|=|\^|~)?\s*(\d+(?:\.\d+){0,2})/g)];
    if (comparators.length === 0 || alternative.replace(/(>=|<=|>|<|=|\^|~)?\s*\d+(?:\.\d+){0,2}/g, "").trim()) {
      throw new Error(
        `unsupported engines range: ${range}; rangeAdmits reads only comparators, ^, ~ and bare versions joined by || (no x-ranges, hyphen ranges or prerelease tags): extend it, or use the semver package (in node_modules through typescript-eslint; add it to devDependencies before importing it)`,
      );
    }
    return comparators.every(([, op = "", bound = ""]) => {
      const at = parseVersion(bound);
      const parts = bound.split(".").length;
      const order = compare(version, at);
      switch (op) {
        case ">=":
          return order >= 0;
        case ">":
          return order > 0;
        case "<=":
          return order <= 0;
        case "<":
          return order < 0;
        case "^":
          // The left-most non-zero part is fixed: ^1.2.3 is 1.x, ^0.2.3 is 0.2.x, ^0.0.3 is 0.0.3 only.
          if (at[0] > 0 || parts === 1) return order >= 0 && version[0] === at[0];
          if (at[1] > 0 || parts === 2) return order >= 0 && version[0] === 0 && version[1] === at[1];
          return order === 0;
        case "~":
          return order >= 0 && version[0] === at[0] && (parts === 1 || version[1] === at[1]);
        default:
          // A bare or `=` version: a partial one (`20`, `20.1`) stands for every version under it.
          return parts === 1 ? version[0] === at[0] : parts === 2 ? version[0] === at[0] && version[1] === at[1] : order === 0;
      }
    });
  });
}

describe("dependency engines", () => {
  it("reads the engines ranges packages use", () => {
    assert.equal(rangeAdmits("^18.19.0 || >=20.6.0", [20, 18, 1]), true);
    assert.equal(rangeAdmits(">=22.15.0", [20, 18, 1]), false);
    assert.equal(rangeAdmits("20 || >=22", [21, 0, 0]), false);
    assert.equal(rangeAdmits("^20.17.0 || >=22.9.0", [22, 1, 0]), false);
    assert.equal(rangeAdmits(">= 20.19.0", [20, 18, 1]), false);
    assert.equal(rangeAdmits("^0.2.3", [0, 2, 9]), true);
    assert.equal(rangeAdmits("^0.2.3", [1, 2, 9]), false);
    assert.equal(rangeAdmits("^0.0.3", [0, 0, 4]), false);
    assert.throws(() => rangeAdmits("node20", [20, 0, 0]), /unsupported engines range: node20; .*extend it, or use the semver package/);
    assert.throws(() => rangeAdmits("20.x", [20, 0, 0]), /unsupported engines range: 20\.x/);
  });

  it("the OpenTelemetry packages are `~` ranges holding the locked version: a user's npm install stays on the checked minor line", () => {
    const dependencies = readJson("package.json").dependencies as Record<string, string>;
    const packages = readJson("package-lock.json").packages as Record<string, LockEntry>;
    const otel = Object.entries(dependencies).filter(([name]) => name.startsWith("@opentelemetry/"));
    assert.ok(otel.length > 0, "package.json depends on OpenTelemetry");
    for (const [name, range] of otel) {
      assert.match(range, /^~\d+\.\d+\.\d+$/, `${name} is "${range}" in package.json: use ~x.y.z (a ^ range lets a user's npm install reach a minor line this test never saw; an exact pin blocks patch releases)`);
      const locked = packages[`node_modules/${name}`]?.version ?? assert.fail(`the lockfile has no ${name}`);
      assert.ok(rangeAdmits(range, parseVersion(locked)), `the lockfile's ${name}@${locked} is outside package.json's "${range}": run npm install`);
    }
  });

  it("what `npm ci` installs (dev tools and skipped optional packages aside) supports the project's oldest Node", () => {
    const declared = (readJson("package.json").engines as { node: string }).node;
    const oldest = /^>=\s*(\d+\.\d+\.\d+)$/.exec(declared)?.[1];
    assert.ok(oldest, `package.json engines.node is "${declared}"; this test reads a ">=x.y.z" range`);
    const packages = readJson("package-lock.json").packages as Record<string, LockEntry>;
    // What `npm ci` of this repo installs to run it: not the dev tools, and not the optional
    // packages npm skips when their engines refuse (just-bash's optional zstd codec).
    const installed = Object.entries(packages).filter(([where, entry]) => where.startsWith("node_modules/") && !entry.dev && !entry.optional);
    assert.ok(installed.some(([where]) => where.startsWith("node_modules/@opentelemetry/")), "the lockfile installs the OpenTelemetry SDK");
    const refusing = installed
      .filter(([, entry]) => entry.engines?.node && !rangeAdmits(entry.engines.node, parseVersion(oldest)))
      .map(([where, entry]) => `${where.slice(where.lastIndexOf("node_modules/") + "node_modules/".length)}@${entry.version} needs node ${entry.engines!.node}`);
    assert.deepEqual(refusing, [], `pin these to a line that supports Node ${oldest} (npm view <pkg>@<version> engines)`);
  });
});
