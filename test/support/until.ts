/** Waits until `check` holds, looking every 20 ms (at most 30 s); else fails naming `what`. */
export async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
