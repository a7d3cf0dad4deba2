import { describe, expect, it } from 'vitest';
import { determinationRequest, FACTS, resultWord } from '../src/facts';
import { csv } from '../src/views/officer';
import { canonicalOf, sourceFieldsOf } from '../src/views/analyst';

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
      disturbed: '2.5', disturbed_unit: 'acre', larger_common_plan: false, single_family: 'no',
      agricultural: '', silviculture: 'yes', plat_approved_on: '2005-03-01', building_permit_approved_on: '',
    });
    expect(b).toEqual({ parcel: 'P-1', disturbed: '2.5acre', larger_common_plan: false, single_family: false, silviculture: true, plat_approved_on: '2005-03-01' });
  });

  it('sends an empty area as empty, for the server to refuse by name', () => {
    const fp = { type: 'Polygon', coordinates: [] };
    expect(determinationRequest({ footprint: fp }, {})).toEqual({ footprint: fp, disturbed: '', larger_common_plan: false });
  });

  it('says results in words', () => {
    expect(resultWord(true)).toBe('yes');
    expect(resultWord(null)).toBe('undetermined');
    expect(resultWord('needs_review')).toBe('needs review');
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
