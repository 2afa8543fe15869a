/**
 * Serialized answers by key, forgetting the oldest past a total size in characters, so that a long
 * run over many addresses or timestamps keeps memory bounded.
 */
export class BoundedCache {
  private readonly entries = new Map<string, string>();
  private size = 0;

  private readonly maxChars: number;

  constructor(maxChars: number) {
    this.maxChars = maxChars;
  }

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: string): void {
    const cost = key.length + value.length;
    if (cost > this.maxChars) return;
    this.delete(key);
    while (this.size + cost > this.maxChars) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
    this.entries.set(key, value);
    this.size += cost;
  }

  private delete(key: string): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.size -= key.length + value.length;
  }
}
