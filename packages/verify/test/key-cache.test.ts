import { describe, expect, it } from 'vitest';
import { KeyCache } from '../src/key-cache';

describe('KeyCache', () => {
  it('derives a key once per secret', () => {
    const cache = new KeyCache<string>(4);
    const derived: string[] = [];
    const derive = (secret: string) => {
      derived.push(secret);
      return `key:${secret}`;
    };
    expect(cache.get('a', derive)).toBe('key:a');
    expect(cache.get('a', derive)).toBe('key:a');
    expect(derived).toEqual(['a']);
  });

  it('drops the oldest entry when full', () => {
    const cache = new KeyCache<number>(2);
    let calls = 0;
    const derive = () => ++calls;
    cache.get('a', derive);
    cache.get('b', derive);
    cache.get('c', derive); // evicts a
    expect(cache.get('b', derive)).toBe(2);
    expect(cache.get('a', derive)).toBe(4);
  });

  it('forgets a deleted entry', () => {
    const cache = new KeyCache<number>(2);
    let calls = 0;
    cache.get('a', () => ++calls);
    cache.delete('a');
    expect(cache.get('a', () => ++calls)).toBe(2);
  });
});
