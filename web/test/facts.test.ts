import { describe, expect, it } from 'vitest';
import { determinationRequest, FACTS, factOfOpen, factsGiven, openFacts, resultWord } from '../src/facts';
import { csv } from '../src/views/officer';
import { canonicalOf, commitQuestion, plainWords, rejectedFeatures, sourceFieldsOf } from '../src/views/analyst';
import { evidenceText, footprintOfParam, footprintParam, niceFeet } from '../src/views/planner';

describe('the fact mapping', () => {
  it('covers every fact the determination reads', () => {
    // The fields of DetermineParams (src/answer/determine.rs) besides the place.
    expect(FACTS.map((f) => f.name).sort()).toEqual([
      'agricultural', 'agricultural_activity', 'approved_before_effective_date', 'building_permit_approved_on',
      'completed_before_effective_date', 'construction_permit', 'disturbed', 'gp_coverage', 'gp_enhanced_phosphorus',
      'gp_post_construction', 'in_nyc_east_of_hudson_watershed', 'larger_common_plan', 'plat_approved_on',
      'requires_stormwater_management_facility', 'routine_maintenance', 'silviculture', 'single_family',
    ]);
  });

  it('sends known facts and leaves the unknown ones out, so they stay open', () => {
    const b = determinationRequest({ parcel: 'P-1' }, {
      disturbed: '2.5', disturbed_unit: 'acre', larger_common_plan: 'no', single_family: 'no',
      agricultural: '', silviculture: 'yes', plat_approved_on: '2005-03-01', building_permit_approved_on: '',
    });
    expect(b).toEqual({ parcel: 'P-1', disturbed: '2.5acre', larger_common_plan: false, single_family: false, silviculture: true, plat_approved_on: '2005-03-01' });
  });

  it('sends an empty area as empty, for the server to refuse by name', () => {
    const fp = { type: 'Polygon', coordinates: [] };
    expect(determinationRequest({ footprint: fp }, {})).toEqual({ footprint: fp, disturbed: '' });
  });

  it('asks "part of a larger common plan" as yes, no or not known, like the other facts', () => {
    expect(FACTS.find((f) => f.name === 'larger_common_plan')?.kind).toBe('tri');
    expect(determinationRequest({ parcel: 'P-1' }, { disturbed: '1', larger_common_plan: 'yes' })).toMatchObject({ larger_common_plan: true });
    expect(determinationRequest({ parcel: 'P-1' }, { disturbed: '1', larger_common_plan: '' })).not.toHaveProperty('larger_common_plan');
  });

  it('says results in words', () => {
    expect(resultWord(true)).toBe('yes');
    expect(resultWord(null)).toBe('undetermined');
    expect(resultWord('needs_review')).toBe('needs review');
    expect(resultWord({ kind: 'x' })).not.toMatch(/[{}"]/);
  });
});

describe('open facts', () => {
  it('names the form\'s fact for an open fact the answer names by field, permit name or words', () => {
    expect(factOfOpen('requires_stormwater_management_facility')?.label).toBe('An approval requires a stormwater management facility');
    expect(factOfOpen('gp.enhanced_phosphorus')?.name).toBe('gp_enhanced_phosphorus');
    expect(factOfOpen('Condition Three exclusion: whether it is the construction of a single-family residence')?.name).toBe('single_family');
    expect(factOfOpen('Condition Three exclusion: whether it is construction at an agricultural property')?.name).toBe('agricultural');
    expect(factOfOpen('larger common plan: total disturbance of the plan')).toBeNull();
  });

  it('lists the answer\'s open facts in the form\'s words, then every fact left not known', () => {
    const all = openFacts(['gp.coverage', 'the exemption cut-off date (AMB-14)'], { disturbed: '1', single_family: 'no', gp_coverage: '' });
    expect(all[0]).toEqual({ fact: FACTS.find((f) => f.name === 'gp_coverage'), text: 'Needs construction general permit coverage', fromAnswer: true });
    expect(all[1]).toEqual({ fact: null, text: 'the exemption cut-off date (AMB-14)', fromAnswer: true });
    const rest = all.slice(2).map((o) => o.fact?.name);
    const tri = FACTS.filter((f) => f.kind === 'tri' && f.name !== 'single_family' && f.name !== 'gp_coverage').map((f) => f.name);
    expect(rest).toEqual(tri);
    expect(rest).toContain('larger_common_plan');
    expect(all.filter((o) => o.fact?.name === 'gp_coverage')).toHaveLength(1);
  });

  it('lists the facts given in the form\'s words', () => {
    expect(factsGiven({ disturbed: '2', disturbed_unit: 'acre', single_family: 'no', agricultural: '', plat_approved_on: '2005-03-01' })).toEqual([
      ['Area disturbed', '2 acre'], ['A single-family residence', 'no'], ['Subdivision plat approved on', '2005-03-01'],
    ]);
  });
});

describe('exports and import messages', () => {
  it('quotes CSV cells that need it', () => {
    expect(csv([{ a: 'x, y', b: 'say "hi"', c: null }], ['a', 'b', 'c'])).toBe('a,b,c\r\n"x, y","say ""hi""",\r\n');
  });

  it('writes a cell a spreadsheet would run after a quote, and numbers as numbers', () => {
    const row = { a: '=HYPERLINK("http://x")', b: '@SUM(1)', c: '+1+1', d: '-1+1', e: '\tx', f: -3.2, g: "'q", h: 'CB-1' };
    expect(csv([row], ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'])).toBe(
      'a,b,c,d,e,f,g,h\r\n"\'=HYPERLINK(""http://x"")",\'@SUM(1),\'+1+1,\'-1+1,\'\tx,-3.2,\'\'q,CB-1\r\n',
    );
  });

  it('guards a number past the range of a double as text, as the server does', () => {
    expect(csv([{ a: '-1.5e639', b: '-1.5e-7' }], ['a', 'b'])).toBe("a,b\r\n'-1.5e639,-1.5e-7\r\n");
  });

  it('reads the fields a refused import names', () => {
    const m = 'f.geojson (layer f): no field for outfalls.asset_id; its fields are: FACILITYID, WATER_ID. Map one with --map asset_id=SOURCE_FIELD';
    expect(sourceFieldsOf(m)).toEqual(['FACILITYID', 'WATER_ID']);
    expect(canonicalOf(m)).toBe('asset_id');
  });
});

describe('the analyst\'s words', () => {
  it('says the importer\'s refusal without the command line', () => {
    const m = 'new.geojson (layer new): no field for outfalls.asset_id; its fields are: FACILITYID, STATUS. Map one with --map asset_id=SOURCE_FIELD';
    expect(plainWords(m)).toBe('new.geojson (layer new): no field for outfalls.asset_id; its fields are: FACILITYID, STATUS. Choose the source field for asset_id in the table of fields below, then run again.');
    expect(sourceFieldsOf(plainWords(m))).toEqual(['FACILITYID', 'STATUS']);
    expect(plainWords('--map asset_id: expected canonical=source')).not.toContain('--');
    expect(plainWords('use --allow-mass-delete to go on')).toBe('use the "allow mass delete" option to go on');
  });

  it('asks before a commit that leaves features out', () => {
    expect(commitQuestion({ rejected: 1, imported: 2 })).toBe('1 feature rejected — commit the other 2?');
    expect(commitQuestion({ rejected: 3, imported: 0 })).toBe('3 features rejected — commit the other 0?');
  });

  it('lists each rejected feature once, by the source\'s number, with every reason', () => {
    const r = { rejections: [
      { feature: 7, id: 'A', field: 'status', reason: 'unknown value x' },
      { feature: 2, id: null, reason: 'no id' },
      { feature: 7, id: 'A', field: 'diameter_in', reason: 'diameter_in: not a number' },
    ] };
    expect(rejectedFeatures(r)).toEqual([
      { feature: 2, id: null, reasons: ['no id'] },
      { feature: 7, id: 'A', reasons: ['status: unknown value x', 'diameter_in: not a number'] },
    ]);
  });
});

describe('the planner\'s evidence and print', () => {
  it('says evidence in sentences, never as JSON', () => {
    expect(evidenceText({ kind: 'feature', layer: 'receiving_waters', id: 'NY-1', note: 'listed' })).toBe('receiving water NY-1: listed');
    expect(evidenceText({ kind: 'measure', what: 'overlap_area', value: 6439.15, unit: 'sqftUS', of: 'the footprint' })).toBe('overlap area of the footprint: 6,439 sqftUS');
    expect(evidenceText({ kind: 'trace', path: ['CB-1', 'P-2', 'OF-3'] })).toBe('traced: CB-1 → P-2 → OF-3');
    expect(evidenceText({ kind: 'other', a: 1, b: ['x', 'y'] })).toBe('kind: other; a: 1; b: x, y');
  });

  it('draws a scale bar of a round length', () => {
    expect(niceFeet(137)).toBe(100);
    expect(niceFeet(480)).toBe(200);
    expect(niceFeet(60)).toBe(50);
    expect(niceFeet(1)).toBe(1);
  });
});

describe('a footprint in a link', () => {
  it('rides as its corners and comes back closed', () => {
    const poly = { type: 'Polygon', coordinates: [[[-73.8614258, 41.2137916], [-73.8612127, 41.2137904], [-73.8612097, 41.2140918], [-73.8614258, 41.2137916]]] };
    const s = footprintParam(poly)!;
    expect(s).toBe('-73.861426,41.213792;-73.861213,41.213790;-73.861210,41.214092');
    expect(footprintOfParam(s)).toEqual({ type: 'Polygon', coordinates: [[[-73.861426, 41.213792], [-73.861213, 41.21379], [-73.86121, 41.214092], [-73.861426, 41.213792]]] });
  });

  it('is left out when too long or not one ring, and refused when not corners', () => {
    const many = Array.from({ length: 60 }, (_, i) => [Math.cos(i / 10), Math.sin(i / 10)]);
    expect(footprintParam({ type: 'Polygon', coordinates: [[...many, many[0]]] })).toBeNull();
    expect(footprintParam({ type: 'MultiPolygon', coordinates: [] })).toBeNull();
    expect(footprintOfParam('1,2;3,4')).toBeNull();
    expect(footprintOfParam('1,2;3,x;5,6')).toBeNull();
    expect(footprintOfParam('1,2;3,4;500,6')).toBeNull();
  });
});
