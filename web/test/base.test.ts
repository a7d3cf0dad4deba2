import { describe, expect, it } from 'vitest';
import { at, baseOf, BASE, kept } from '../src/api';

describe('the page asks under the folder it was loaded from', () => {
  it.each([
    ['/', ''],
    ['/r/carmel/', '/r/carmel'],
    ['/ms4/r/north-castle/', '/ms4/r/north-castle'],
    // Without its slash a member's folder reads as its parent: the server redirects there.
    ['/r/carmel', '/r'],
  ])('a page at %s asks under %j', (path, base) => {
    expect(baseOf(path)).toBe(base);
  });

  it('outside a browser the base is the root and names are the root\'s', () => {
    expect(BASE).toBe('');
    expect(at('/api/session')).toBe('/api/session');
    expect(kept('ms4.token')).toBe('ms4.token');
  });
});
