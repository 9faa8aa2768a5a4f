// lz-string's `compressToEncodedURIComponent`, the same bits, with the dictionary held as a trie
// of character codes. lz-string keys its dictionary by the phrase itself, so on a repetitive
// trace (whose phrases grow to thousands of characters) it builds and hashes a long string per
// input character: 73 s for the 30 MB of 555,000 allocations. This takes well under a second.
// e2e/big-link.spec.ts checks that both give the same text.

const KEY = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-$';

export function compressToEncodedURIComponent(input: string): string {
  const out: string[] = [];
  let val = 0;
  let pos = 0;
  const bit = (b: number) => {
    val = (val << 1) | b;
    if (pos === 5) {
      pos = 0;
      out.push(KEY[val]);
      val = 0;
    } else pos++;
  };
  const bits = (v: number, n: number) => {
    for (let i = 0; i < n; i++, v >>= 1) bit(v & 1);
  };
  let size = 3;
  let width = 2;
  let enlargeIn = 2;
  const grow = () => {
    if (--enlargeIn === 0) {
      enlargeIn = 2 ** width;
      width++;
    }
  };
  // Phrases as numbers: `dict` maps a phrase's code and the next character to the longer
  // phrase's code; `fresh` holds the characters numbered but not written yet (literals).
  const dict = new Map<number, number>();
  // (Small integers for ASCII: V8's maps are quickest with them.)
  const key = (w: number, c: number) => (c < 128 ? w * 128 + c : -(w * 65536 + c));
  const singles = new Map<number, number>();
  const fresh = new Map<number, number>();
  const write = (w: number) => {
    const literal = fresh.get(w);
    if (literal !== undefined) {
      const wide = literal >= 256;
      bits(wide ? 1 : 0, width);
      bits(literal, wide ? 16 : 8);
      grow();
      fresh.delete(w);
    } else bits(w, width);
    grow();
  };
  // The phrase of one character, numbered when first seen.
  const single = (c: number): number => {
    let one = singles.get(c);
    if (one === undefined) {
      one = size++;
      singles.set(c, one);
      fresh.set(one, c);
    }
    return one;
  };
  if (input.length === 0) {
    bits(2, width);
    return flush();
  }
  let w = single(input.charCodeAt(0));
  for (let i = 1; i < input.length; i++) {
    const c = input.charCodeAt(i);
    const wc = dict.get(key(w, c));
    if (wc !== undefined) {
      w = wc;
      continue;
    }
    // A character seen for the first time is numbered before the new phrase.
    const one = single(c);
    write(w);
    dict.set(key(w, c), size++);
    w = one;
  }
  write(w);
  bits(2, width);
  return flush();

  // The last character, padded.
  function flush(): string {
    for (;;) {
      val <<= 1;
      if (pos === 5) {
        out.push(KEY[val]);
        break;
      }
      pos++;
    }
    return out.join('');
  }
}
