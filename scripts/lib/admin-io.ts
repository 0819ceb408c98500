/** Where an admin command writes: results on `out` (the last line is JSON), notes for the operator on `err`. */
export interface AdminIo {
  readonly out: { write(text: string): unknown };
  /** A terminal (isTTY) gets live progress lines (retention). */
  readonly err: { readonly isTTY?: boolean; write(text: string): unknown };
}

/** The process's own streams: what `npm run admin` writes to. */
export const processIo = (): AdminIo => ({ out: process.stdout, err: process.stderr });

/** Writes one line. */
export const say = (stream: AdminIo['out'], line: string): void => void stream.write(`${line}\n`);
