import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { terraform } from '../helpers/terraform.js';

/**
 * A configuration for `workspace` on the test server's `understudy` organization with one
 * `terraform_data` resource and its output: no provider to download (it is built into the CLI).
 */
export function greetingConfiguration(workspace: string, greeting: string): string {
  return `terraform {
  cloud {
    hostname     = "understudy.test"
    organization = "understudy"
    workspaces { name = "${workspace}" }
  }
}
resource "terraform_data" "greeting" {
  input = "${greeting}"
}
output "greeting" { value = terraform_data.greeting.output }
`;
}

/** Writes the greeting configuration into `dir` (replacing its `main.tf`). */
export function writeGreeting(dir: string, workspace: string, greeting: string): void {
  writeFileSync(join(dir, 'main.tf'), greetingConfiguration(workspace, greeting));
}

/** Writes the greeting configuration into `dir` and runs `terraform init` there, which must succeed. */
export async function initGreeting(dir: string, baseUrl: string, workspace: string, greeting: string): Promise<void> {
  writeGreeting(dir, workspace, greeting);
  expect((await terraform(dir, baseUrl, 'init', '-input=false')).status).toBe(0);
}

/** Temporary working directories for the CLI: `make` one per test, `removeAll` in `afterAll`. */
export function workDirectories(prefix: string) {
  const made: string[] = [];
  return {
    make(): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
    removeAll(): void {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
