import { describe, expect, it } from 'vitest';
import { canonical, rankCandidates, type Facts, type Finding } from '../src/candidates';

describe('canonical', () => {
  it('reads an id typed in any case as the registry spells it', () => {
    expect(canonical(' of-000002 ', ['OF-000001', 'OF-000002'])).toBe('OF-000002');
    expect(canonical('ws-0001', ['WS-0001'])).toBe('WS-0001');
  });
  it('leaves an id the registry does not have as typed, for the server to refuse', () => {
    expect(canonical(' OF-9 ', ['OF-000001'])).toBe('OF-9');
  });
});

describe('rankCandidates', () => {
  const findings = new Map<string, Finding>([
    ['C-1', { result: 'ok', reasons: ['stormwater'] }],
    ['C-2', { result: 'illicit', reasons: ['a floor drain'] }],
    ['C-3', { result: 'needs_review', reasons: ['no record'] }],
    ['C-4', { result: 'needs_review', reasons: ['no record'] }],
  ]);
  const known = new Map<string, Facts>([
    ['C-3', { parcel_id: 'P-3', discharge_kind: 'stormwater', address: '3 Elm St' }],
    ['C-4', { parcel_id: 'P-4', discharge_kind: 'foundation_drain', address: null }],
  ]);
  it('ranks the illicit first, then those needing review (not stormwater first), then the ok', () => {
    const r = rankCandidates([{ connection_id: 'C-1' }, { connection_id: 'C-3' }, { connection_id: 'C-2', parcel_id: 'P-2' }, { connection_id: 'C-4' }, { connection_id: 'C-5' }], findings, known);
    expect(r.map((c) => [c.rank, c.connection_id, c.finding])).toEqual([
      [1, 'C-2', 'illicit'],
      [2, 'C-4', 'needs_review'],
      [3, 'C-3', 'needs_review'],
      [4, 'C-1', 'ok'],
      [5, 'C-5', 'unknown'],
    ]);
  });
  it('carries each candidate\'s reasons, parcel, discharge and address', () => {
    const [first, second] = rankCandidates([{ connection_id: 'C-3' }, { connection_id: 'C-2', parcel_id: 'P-2' }], findings, known);
    expect(first).toMatchObject({ connection_id: 'C-2', parcel_id: 'P-2', discharge_kind: null, reasons: ['a floor drain'] });
    expect(second).toMatchObject({ parcel_id: 'P-3', discharge_kind: 'stormwater', address: '3 Elm St', reasons: ['no record'] });
  });
});
