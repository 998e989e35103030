// A text as it crosses between threads in a buffer handed over (transferred, not copied): a large page's texts leave
// the HTML worker so (src/extract/html.ts), and become strings again on the thread that gets them (pool.ts).

/** A text as its code units in a buffer of its own, one byte a unit when it holds nothing past Latin-1. */
export interface TextUnits {
  units: ArrayBuffer;
  latin1: boolean;
}

/** `text` in a buffer of its own, to hand to another thread. */
export function unitsOf(text: string): TextUnits {
  const latin1 = !/[^\x00-\xFF]/.test(text);
  const bytes = Buffer.from(text, latin1 ? 'latin1' : 'utf16le');
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return { units: (whole ? bytes : Uint8Array.from(bytes)).buffer as ArrayBuffer, latin1 };
}

/** The text of units handed over (unitsOf): the same string, in one byte a character when it was. */
export function textOf({ units, latin1 }: TextUnits): string {
  return Buffer.from(units).toString(latin1 ? 'latin1' : 'utf16le');
}
