// The project facts the determination reads (`POST /api/determinations`, the fields of
// `DetermineParams`), and how the planner's form maps onto the request. A tri-state fact
// left "not known" is left out, so the answer lists it as open rather than assuming it.
import type { Schemas } from './api';

export type FactKind = 'area' | 'tri' | 'bool' | 'date';

export interface Fact {
  /** The fact's field in the request (`ProjectFactsParams` of the API definition). */
  name: keyof Schemas['ProjectFactsParams'];
  label: string;
  kind: FactKind;
  help?: string;
}

export const FACTS: Fact[] = [
  { name: 'disturbed', label: 'Area disturbed', kind: 'area', help: 'limit of disturbance plus off-site disturbance, all phases' },
  { name: 'larger_common_plan', label: 'Part of a larger common plan of development or sale', kind: 'tri' },
  { name: 'single_family', label: 'A single-family residence', kind: 'tri' },
  { name: 'agricultural', label: 'Construction at an agricultural property', kind: 'tri' },
  { name: 'agricultural_activity', label: 'Agricultural activity (an active farm’s own)', kind: 'tri' },
  { name: 'silviculture', label: 'Silvicultural activity', kind: 'tri' },
  { name: 'routine_maintenance', label: 'Routine maintenance to original line, grade or capacity', kind: 'tri' },
  { name: 'plat_approved_on', label: 'Subdivision plat approved on', kind: 'date' },
  { name: 'building_permit_approved_on', label: 'Building permit approved on', kind: 'date' },
  { name: 'completed_before_effective_date', label: 'Physically completed before the law’s effective date', kind: 'tri' },
  { name: 'approved_before_effective_date', label: 'Approved before the law’s effective date', kind: 'tri' },
  { name: 'in_nyc_east_of_hudson_watershed', label: 'Part of the site in the NYC East of Hudson Watershed', kind: 'tri' },
  { name: 'requires_stormwater_management_facility', label: 'An approval requires a stormwater management facility', kind: 'tri' },
  { name: 'construction_permit', label: 'Under a construction or erosion and sediment control permit', kind: 'tri' },
  { name: 'gp_coverage', label: 'Needs construction general permit coverage', kind: 'tri' },
  { name: 'gp_post_construction', label: 'The permit needs post-construction SMPs', kind: 'tri' },
  { name: 'gp_enhanced_phosphorus', label: 'The permit requires Enhanced Phosphorus Removal Standards', kind: 'tri' },
];

export const AREA_UNITS = ['sqft', 'acre', 'ha', 'm2'];

/** Where the project is: a parcel id, or a footprint polygon (GeoJSON, WGS 84). */
export type Place = { parcel: string } | { footprint: unknown };

/** The form's values: `disturbed` and `disturbed_unit`, `yes`/`no`/`` for tri-states,
 *  booleans for checkboxes, `YYYY-MM-DD` or `` for dates. */
export type FactValues = Record<string, string | boolean | undefined>;

/** The request body for a place and the form's values. */
export function determinationRequest(place: Place, v: FactValues): Schemas['DetermineRequest'] {
  const body: Record<string, unknown> = { ...place };
  for (const f of FACTS) {
    const x = v[f.name];
    switch (f.kind) {
      case 'area': {
        const n = String(x ?? '').trim();
        body[f.name] = n === '' ? '' : `${n}${v[`${f.name}_unit`] ?? 'sqft'}`;
        break;
      }
      case 'bool':
        body[f.name] = x === true;
        break;
      case 'tri':
        if (x === 'yes') body[f.name] = true;
        else if (x === 'no') body[f.name] = false;
        break;
      case 'date':
        if (typeof x === 'string' && x.trim() !== '') body[f.name] = x.trim();
        break;
    }
  }
  // Every fact is a field of the request (`Fact.name`), and `disturbed` is always set.
  return body as Schemas['DetermineRequest'];
}

/** The parts of a determination, in the order the page shows them. */
export const SECTIONS: [string, string][] = [
  ['land_development_activity', 'Land development activity'],
  ['exempt', 'Exemptions'],
  ['conditions_absent', 'Conditions absent'],
  ['not_covered', 'Not covered'],
];

/** A finding's result in words (never colour alone). */
export function resultWord(r: unknown): string {
  if (r === true) return 'yes';
  if (r === false) return 'no';
  if (r === null || r === undefined) return 'undetermined';
  if (typeof r === 'string') return r.replace(/_/g, ' ');
  if (typeof r === 'number') return String(r);
  return 'see the reasons';
}

/** The fact an open fact of the answer names: the answer names a fact by its field
 *  (`construction_permit`), by the permit's dotted name (`gp.coverage`), or in words for
 *  the two Condition Three exclusions. */
export function factOfOpen(open: string): Fact | null {
  const name = open.trim().replace(/^gp\./, 'gp_');
  const byName = FACTS.find((f) => f.name === name);
  if (byName) return byName;
  if (/^Condition Three exclusion: .*single-family residence/.test(open)) return FACTS.find((f) => f.name === 'single_family') ?? null;
  if (/^Condition Three exclusion: .*agricultural property/.test(open)) return FACTS.find((f) => f.name === 'agricultural') ?? null;
  return null;
}

/** One open fact as the page lists it: the form's fact when it names one (answerable in
 *  place), else the answer's words; `fromAnswer` says whether the answer turned on it. */
export interface OpenFact {
  fact: Fact | null;
  text: string;
  fromAnswer: boolean;
}

/** The facts left open: those the answer lists, in the form's words, then every other
 *  yes/no fact the form left "not known" (the answer did not turn on them, but a file
 *  must show they were not given). */
export function openFacts(fromAnswer: string[], v: FactValues): OpenFact[] {
  const out: OpenFact[] = [];
  const seen = new Set<string>();
  for (const o of fromAnswer) {
    const fact = factOfOpen(o);
    if (fact && seen.has(fact.name)) continue;
    if (fact) seen.add(fact.name);
    out.push({ fact, text: fact ? fact.label : o, fromAnswer: true });
  }
  for (const f of FACTS) {
    if (f.kind !== 'tri' || seen.has(f.name)) continue;
    const x = v[f.name];
    if (x === undefined || x === '') out.push({ fact: f, text: f.label, fromAnswer: false });
  }
  return out;
}

/** The facts the form gave (not "not known"), in the form's words, for the file. */
export function factsGiven(v: FactValues): [string, string][] {
  const out: [string, string][] = [];
  for (const f of FACTS) {
    const x = v[f.name];
    if (f.kind === 'area') {
      const n = String(x ?? '').trim();
      if (n !== '') out.push([f.label, `${n} ${v[`${f.name}_unit`] ?? 'sqft'}`]);
    } else if (typeof x === 'string' && x.trim() !== '') out.push([f.label, x.trim()]);
    else if (x === true) out.push([f.label, 'yes']);
  }
  return out;
}
