/** Reads configuration once, failing loudly: a function without its table must not start serving. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Environment variable ${name} is required`);
  return value;
}

export const tableName = (): string => requireEnv('TABLE_NAME');
