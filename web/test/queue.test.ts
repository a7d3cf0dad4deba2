import 'fake-indexeddb/auto';
// @ts-expect-error: the page's project has no Node types; only these tests run in Node.
import { webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Queue, type Sender } from '../src/queue';

// Node 18 (Debian 12's) has Web Crypto as node:crypto's webcrypto only, not as the global
// a browser has.
if (!globalThis.crypto) Object.defineProperty(globalThis, 'crypto', { value: webcrypto });

/** A server that remembers idempotency keys, as ms4 serve does. */
function server(opts: { failFirst?: number; refuse?: (body: any) => { error: string; field?: string } | null; dropAnswers?: number; token?: { ok: boolean } } = {}) {
  const written = new Map<string, any>();
  const photos: { id: string; type: string; size: number }[] = [];
  let fails = opts.failFirst ?? 0;
  let drops = opts.dropAnswers ?? 0;
  const fetch = (async (url: string, init: any) => {
    if (fails > 0) {
      fails--;
      throw new TypeError('Failed to fetch');
    }
    if (opts.token && !opts.token.ok) {
      return new Response(JSON.stringify({ error: 'the token was revoked', status: 401 }), { status: 401 });
    }
    if (url === '/api/inspections') {
      const body = JSON.parse(init.body);
      const why = opts.refuse?.(body);
      if (why) return new Response(JSON.stringify({ ...why, status: 400 }), { status: 400 });
      const key = init.headers['Idempotency-Key'];
      if (!written.has(key)) written.set(key, body);
      if (drops > 0) {
        drops--;
        throw new TypeError('network dropped before the answer');
      }
      return new Response(JSON.stringify({ inspection: { inspection_id: `${body.asset_id}:${body.inspected_on}:${body.kind}` } }), { status: 201 });
    }
    const m = /^\/api\/inspections\/(.+)\/photos$/.exec(url);
    if (m) {
      photos.push({ id: decodeURIComponent(m[1]), type: init.headers['Content-Type'], size: (init.body as Blob).size });
      return new Response(JSON.stringify({ photo_id: photos.length, sha256: 'x' }), { status: 201 });
    }
    return new Response('{}', { status: 404 });
  }) as unknown as typeof globalThis.fetch;
  const sender: Sender = { fetch, headers: () => ({ Authorization: 'Bearer t' }) };
  return { written, photos, sender };
}

const body = (asset: string) => ({ asset_id: asset, inspected_on: '2026-11-30', kind: 'dry_weather_screening', result: 'pass' });

describe('the queue', () => {
  it('keeps what was recorded offline and sends each exactly once, oldest first', async () => {
    const q = new Queue(new IDBFactory());
    const s = server({ failFirst: 1 });
    await q.add(body('A'));
    await q.add(body('B'));
    await q.add(body('C'));
    const offline = await q.flush(s.sender);
    expect(offline).toEqual({ sent: 0, rejected: 0, offline: true, signin: false });
    expect((await q.all()).length).toBe(3);
    const online = await q.flush(s.sender);
    expect(online.sent).toBe(3);
    expect([...s.written.values()].map((b) => b.asset_id)).toEqual(['A', 'B', 'C']);
    expect(await q.all()).toEqual([]);
    expect((await q.flush(s.sender)).sent).toBe(0);
  });

  it('sends again with the same key when the answer was lost, so nothing is doubled', async () => {
    const q = new Queue(new IDBFactory());
    const s = server({ dropAnswers: 1 });
    const e = await q.add(body('A'));
    expect((await q.flush(s.sender)).offline).toBe(true);
    expect((await q.all())[0].key).toBe(e.key);
    expect((await q.flush(s.sender)).sent).toBe(1);
    expect(s.written.size).toBe(1);
  });

  it('keeps a refused inspection with the server message instead of dropping it', async () => {
    const q = new Queue(new IDBFactory());
    const s = server({
      refuse: (b) => (b.asset_id === 'BAD' ? { error: 'asset_id: no outfalls has id "BAD"', field: 'asset_id' } : null),
    });
    await q.add(body('BAD'));
    await q.add(body('OK'));
    const r = await q.flush(s.sender);
    expect(r).toEqual({ sent: 1, rejected: 1, offline: false, signin: false });
    const left = await q.all();
    expect(left.map((x) => [x.body.asset_id, x.state, x.error, x.field])).toEqual([
      ['BAD', 'rejected', 'asset_id: no outfalls has id "BAD"', 'asset_id'],
    ]);
  });

  it('sends the photos after the inspection is accepted, to its id, with their type', async () => {
    const q = new Queue(new IDBFactory());
    const s = server();
    await q.add(body('A'), [{ type: 'image/jpeg', data: new Blob([new Uint8Array(10)], { type: 'image/jpeg' }) }]);
    expect((await q.flush(s.sender)).sent).toBe(1);
    expect(s.photos).toEqual([{ id: 'A:2026-11-30:dry_weather_screening', type: 'image/jpeg', size: 10 }]);
  });

  it('keeps what a revoked or expired token could not send, marked, and sends it once after sign-in', async () => {
    const q = new Queue(new IDBFactory());
    const token = { ok: false };
    const s = server({ token });
    await q.add(body('A'));
    await q.add(body('B'));
    const refused = await q.flush(s.sender);
    expect(refused).toEqual({ sent: 0, rejected: 0, offline: false, signin: true });
    const kept = await q.all();
    expect(kept.map((e) => [e.body.asset_id, e.state])).toEqual([['A', 'signin'], ['B', 'signin']]);
    expect(kept[0].error).toBe('the token was revoked');
    // Flushing again with the same token sends nothing and drops nothing.
    expect((await q.flush(s.sender)).signin).toBe(true);
    expect((await q.all()).length).toBe(2);
    token.ok = true;
    const after = await q.flush(s.sender);
    expect(after).toEqual({ sent: 2, rejected: 0, offline: false, signin: false });
    expect([...s.written.values()].map((b) => b.asset_id)).toEqual(['A', 'B']);
    expect(await q.all()).toEqual([]);
  });

  it('survives a new Queue on the same database (a reload)', async () => {
    const idb = new IDBFactory();
    await new Queue(idb).add(body('A'));
    expect((await new Queue(idb).all()).map((e) => e.body.asset_id)).toEqual(['A']);
  });
});
