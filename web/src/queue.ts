// The inspections waiting on this device (IndexedDB), sent when the network allows, each
// exactly once: every entry carries an idempotency key made when it was recorded, and the
// server answers a key it has seen with the first answer instead of writing again. An
// entry leaves the queue only when the server has its inspection (and its photos).

import { fieldOf, kept, urlOf } from './api';

export interface QueuedPhoto {
  type: string;
  data: Blob;
  /** Set once the server holds it. */
  sent?: boolean;
}

export interface Entry {
  /** The idempotency key (`Idempotency-Key`), also the entry's key in the store. */
  key: string;
  /** The `POST /api/inspections` body. */
  body: Record<string, unknown>;
  photos: QueuedPhoto[];
  /** When it was recorded (ms since the epoch): the queue sends oldest first. */
  queuedAt: number;
  /** waiting (to send); signin (the server refused the token, 401 or 403: it waits,
   *  marked, until the user signs in again and is then sent); rejected (the server
   *  refused the inspection itself: `error` says why). */
  state: 'waiting' | 'signin' | 'rejected';
  error?: string;
  /** The field the server named as at fault in a rejection, if it named one. */
  field?: string;
  /** The inspection id, once the server accepted it (its photos may still be waiting). */
  inspectionId?: string;
}

// Each registry of a server its own queue: the browser keeps one set of databases per
// origin, and a member's inspections must go to that member only.
const DB = kept('ms4');
const STORE = 'queue';

function open(idb: IDBFactory): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = idb.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'key' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function done<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** What sending an entry needs: the network (fetch) and the token. */
export interface Sender {
  fetch: typeof fetch;
  headers: () => Record<string, string>;
}

/** The outcome of one flush. */
export interface FlushResult {
  sent: number;
  rejected: number;
  /** True when the network failed and entries are still waiting. */
  offline: boolean;
  /** True when the server refused the token: entries wait for a new sign-in. */
  signin: boolean;
}

export class Queue {
  private db: Promise<IDBDatabase>;
  private flushing: Promise<FlushResult> | null = null;
  /** Called after every change, for the page's "waiting" line. Awaited, so when `add`,
   *  `remove` or a flush returns, the line already says what the queue holds. */
  onChange: () => void | Promise<void> = () => {};

  constructor(idb: IDBFactory = indexedDB) {
    this.db = open(idb);
  }

  private async tx(mode: IDBTransactionMode): Promise<IDBObjectStore> {
    return (await this.db).transaction(STORE, mode).objectStore(STORE);
  }

  /** Puts an inspection in the queue, with a new idempotency key; returns the entry. */
  async add(body: Record<string, unknown>, photos: QueuedPhoto[] = [], key = newKey()): Promise<Entry> {
    // Strictly after every entry waiting: two recorded in the same millisecond still go
    // in the order they were recorded (the key, random, cannot break the tie).
    const latest = (await this.all()).reduce((m, x) => Math.max(m, x.queuedAt), 0);
    const e: Entry = { key, body, photos, queuedAt: Math.max(Date.now(), latest + 1), state: 'waiting' };
    await done((await this.tx('readwrite')).put(e));
    await this.onChange();
    return e;
  }

  /** Every entry, oldest first. */
  async all(): Promise<Entry[]> {
    const list = (await done((await this.tx('readonly')).getAll())) as Entry[];
    return list.sort((a, b) => a.queuedAt - b.queuedAt || a.key.localeCompare(b.key));
  }

  async remove(key: string): Promise<void> {
    await done((await this.tx('readwrite')).delete(key));
    await this.onChange();
  }

  /** Writes an entry back as it now is (its state, its reason). */
  async put(e: Entry): Promise<void> {
    await done((await this.tx('readwrite')).put(e));
    await this.onChange();
  }

  /** Sends what is waiting, oldest first; one flush at a time (a second call joins the
   *  first). A network failure stops the flush and leaves the rest waiting; a refusal
   *  (4xx) marks that entry rejected with the server's message and goes on. */
  flush(sender: Sender): Promise<FlushResult> {
    if (!this.flushing) {
      this.flushing = this.run(sender).finally(() => (this.flushing = null));
    }
    return this.flushing;
  }

  private async run(sender: Sender): Promise<FlushResult> {
    const out: FlushResult = { sent: 0, rejected: 0, offline: false, signin: false };
    for (const e of await this.all()) {
      if (e.state === 'rejected') continue;
      try {
        const r = await sendOne(e, sender);
        if (r === 'sent') {
          await this.remove(e.key);
          out.sent++;
        } else if (r === 'signin') {
          // The token will not do for any of them: all wait, marked, for the next sign-in.
          await this.put(e);
          for (const rest of await this.all()) {
            if (rest.state !== 'waiting') continue;
            rest.state = 'signin';
            rest.error = e.error;
            await this.put(rest);
          }
          out.signin = true;
          break;
        } else {
          await this.put(e);
          out.rejected++;
        }
      } catch (err) {
        if (err instanceof ServerBusy || err instanceof TypeError) {
          // fetch throws TypeError when the network is down: try again later.
          await this.put(e);
          out.offline = true;
          break;
        }
        throw err;
      }
    }
    return out;
  }
}

/** A 5xx (or 408/429) answer: the entry waits for the next flush. */
export class ServerBusy extends Error {}

/** A refusal of the token rather than of the inspection: the user signs in again. */
function refusedToken(status: number): boolean {
  return status === 401 || status === 403;
}

/** Marks an entry as waiting for a sign-in, with the server's reason. */
function needsSignIn(e: Entry, status: number, data: any): 'signin' {
  e.state = 'signin';
  e.error = data?.error ?? (status === 401 ? 'sign in again' : 'this sign-in may not record inspections');
  return 'signin';
}

/** Sends one entry (the inspection, then its photos); updates it in place. */
export async function sendOne(e: Entry, s: Sender): Promise<'sent' | 'rejected' | 'signin'> {
  if (!e.inspectionId) {
    const res = await s.fetch(urlOf('/api/inspections'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': e.key, ...s.headers() },
      body: JSON.stringify(e.body),
    });
    const data = await res.json().catch(() => null);
    if (res.status >= 500 || res.status === 408 || res.status === 429) {
      throw new ServerBusy(data?.error ?? String(res.status));
    }
    if (refusedToken(res.status)) return needsSignIn(e, res.status, data);
    if (!res.ok) {
      e.state = 'rejected';
      e.error = data?.error ?? `${res.status}`;
      e.field = fieldOf(data) ?? undefined;
      return 'rejected';
    }
    e.inspectionId = data?.inspection?.inspection_id;
  }
  e.state = 'waiting';
  e.error = undefined;
  for (const p of e.photos) {
    if (p.sent) continue;
    const res = await s.fetch(urlOf('/api/inspections/{id}/photos', { id: e.inspectionId ?? '' }), {
      method: 'POST',
      headers: { 'Content-Type': p.type, 'Idempotency-Key': `${e.key}:${e.photos.indexOf(p)}`, ...s.headers() },
      body: p.data,
    });
    if (res.status >= 500 || res.status === 408 || res.status === 429) throw new ServerBusy(String(res.status));
    if (!res.ok) {
      const data = await res.json().catch(() => null);
      if (refusedToken(res.status)) return needsSignIn(e, res.status, data);
      e.state = 'rejected';
      e.error = `photo: ${data?.error ?? res.status}`;
      return 'rejected';
    }
    p.sent = true;
  }
  return 'sent';
}

/** A new idempotency key (random, 122 bits). */
export function newKey(): string {
  const c: Crypto = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = new Uint8Array(16);
  c.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
