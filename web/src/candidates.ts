// What the officer's lists decide without the map: an id typed in any case read as the
// registry spells it, and a trace's candidate connections ranked by their own findings.

/** What the officer's lists say of a connection beyond its finding: its parcel, what it
 *  discharges, and the parcel's address (from the connections and parcels layers). */
export interface Facts {
  parcel_id: string | null;
  discharge_kind: string | null;
  address: string | null;
}

/** A finding as the answers give it (their JSON has no schema in the definition yet). */
export interface Finding {
  result?: string;
  reasons?: string[];
  citations?: { citation: string; title: string }[];
  evidence?: Record<string, unknown>[];
}

/** A connection of the illicit answer, or a candidate of a trace. */
export interface Connection {
  connection_id: string;
  parcel_id?: string | null;
  finding?: Finding;
}

/** The id as the registry spells it (ids are matched whatever their case), else as typed. */
export function canonical(id: string, known: string[]): string {
  const want = id.trim().toLowerCase();
  return known.find((k) => k.toLowerCase() === want) ?? id.trim();
}

/** How a finding ranks a candidate: the illicit first, then those needing review. */
const FINDING_RANK: Record<string, number> = { illicit: 0, needs_review: 1, not_covered: 2, ok: 3 };

/** A candidate of a trace, with its own finding and what the lists know of it. */
export interface Candidate {
  rank: number;
  connection_id: string;
  finding: string;
  parcel_id: string | null;
  discharge_kind: string | null;
  address: string | null;
  reasons: string[];
}

/** The trace's candidates ranked: by finding (illicit, needing review, not covered, ok),
 *  then those whose discharge is not stormwater, then by id; each with its finding's
 *  reasons. */
export function rankCandidates(cs: Connection[], findings: Map<string, Finding>, known: Map<string, Facts>): Candidate[] {
  const rows = cs.map((c) => {
    const f = findings.get(c.connection_id);
    const k = known.get(c.connection_id);
    return { connection_id: c.connection_id, finding: f?.result ?? 'unknown', parcel_id: c.parcel_id ?? k?.parcel_id ?? null, discharge_kind: k?.discharge_kind ?? null, address: k?.address ?? null, reasons: f?.reasons ?? [] };
  });
  const order = (r: (typeof rows)[number]) => FINDING_RANK[r.finding] ?? 4;
  const wet = (r: (typeof rows)[number]) => (r.discharge_kind === 'stormwater' ? 1 : 0);
  rows.sort((a, b) => order(a) - order(b) || wet(a) - wet(b) || a.connection_id.localeCompare(b.connection_id));
  return rows.map((r, i) => ({ rank: i + 1, ...r }));
}

