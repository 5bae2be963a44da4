// Reads what test/harness/global-setup.ts exported, with a message that says why it is missing.
export function harnessEnv(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: it comes from test/harness/global-setup.ts. Run tests with "npm run jest" or "npm test".`,
    );
  }
  return value;
}
