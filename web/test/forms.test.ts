import { describe, expect, it } from 'vitest';
import { buildInspection, FILLED_BY_PAGE, FORMS, invalid, kindFor, localDate, missing, NEW_INSPECTION, resolve, valuesFrom, type Field, type Values } from '../src/forms';
import { components } from '../openapi.json';
import { apiError, fieldOf } from '../src/api';
import { compass, firstPolygon, formatDistance } from '../src/geo';

describe('the inspection forms', () => {
  it('has one form per facility kind that takes an inspection', () => {
    expect(kindFor('outfalls')?.kind).toBe('dry_weather_screening');
    expect(kindFor('smps')?.kind).toBe('smp_maintenance');
    expect(kindFor('catch_basins')?.kind).toBe('catch_basin_cleaning');
    expect(kindFor('manholes')).toBeNull();
    expect(Object.keys(FORMS).sort()).toEqual([...(components.schemas as any).InspectionKind.enum].sort());
  });

  for (const def of Object.values(FORMS)) {
    it(`offers every field the API takes for a ${def.kind}, and nothing else`, () => {
      const accepted = apiFields(def.part);
      const offered = def.fields.map((f) => (f.name === 'time' ? 'observed_at' : f.name)).sort();
      expect(offered).toEqual(accepted);
    });

    it(`sends a ${def.kind} with every field filled that the API's definition accepts`, () => {
      const values: Values = {};
      for (const f of def.fields) values[f.name] = sample(f);
      const b = buildInspection(def, 'X-1', values, new Date(2026, 4, 5, 9, 30), { lon: -72.6, lat: 41.8 });
      expect(validate(NEW_INSPECTION, b, '')).toEqual([]);
      // Every field typed is in the body.
      for (const f of def.fields) {
        if (f.name === 'time') continue;
        expect(has(b, f.name), f.name).toBe(true);
      }
    });
  }

  it('reads units, ranges and choices from the definition', () => {
    const s = FORMS.dry_weather_screening.fields;
    const by = (n: string) => s.find((f) => f.name === n)!;
    expect(by('screening.hours_since_rain')).toMatchObject({ type: 'number', min: 0, label: 'Hours since rain (h)' });
    expect(by('screening.field_tests.ph')).toMatchObject({ type: 'number', min: 0, max: 14 });
    expect(by('screening.field_tests.temperature_f').label).toContain('°F');
    expect(s.some((f) => f.name.includes('potassium') || f.name.includes('temperature_c'))).toBe(false);
    expect(by('screening.characterisation').options).toEqual(['', 'unlikely', 'potential', 'suspect', 'obvious']);
    expect(by('screening.flow').options).toEqual(['', 'none', 'trickle', 'moderate', 'substantial']);
    expect(by('screening.odour.severity').options).toEqual(['', '1', '2', '3']);
    expect(by('screening.odour').suggest).toContain('sewage');
    // The result has no default: the first choice is empty, and it is required.
    expect(by('result')).toMatchObject({ required: true, options: ['', 'pass', 'fail', 'needs_follow_up'] });
  });

  it('builds the screening the API takes, numbers as numbers, indicators rated, empty values left out', () => {
    const when = new Date(2026, 10, 30, 14, 5);
    const b = buildInspection(FORMS.dry_weather_screening, 'OF-1', {
      result: 'fail', 'screening.flow': 'trickle', 'screening.odour': 'sewage', 'screening.odour.severity': '2',
      'screening.colour': 'grey', 'screening.colour.severity': '', 'screening.field_tests.ph': '6.5',
      'screening.field_tests.ammonia_mg_l': '0', 'screening.not_found': false, notes: 'grey water',
    }, when, { lon: -73.123456789, lat: 41.2 });
    expect(b).toEqual({
      asset_id: 'OF-1', kind: 'dry_weather_screening', inspected_on: '2026-11-30', result: 'fail',
      screening: { flow: 'trickle', odour: { kind: 'sewage', severity: 2 }, colour: 'grey', field_tests: { ph: 6.5, ammonia_mg_l: 0 } },
      notes: 'grey water', position: { lon: -73.1234568, lat: 41.2 }, observed_at: when.toISOString(),
    });
  });

  it('records a screening after the fact on the day and time typed', () => {
    const b = buildInspection(FORMS.dry_weather_screening, 'OF-1', { result: 'pass', inspected_on: '2026-11-02', time: '07:45' }, new Date(2026, 10, 30, 14, 5), null);
    expect(b.inspected_on).toBe('2026-11-02');
    expect(b.observed_at).toBe(new Date(2026, 10, 2, 7, 45).toISOString());
  });

  it('sends checklists as typed fields, not notes', () => {
    const b = buildInspection(FORMS.smp_maintenance, 'SMP-1', { result: 'pass', 'smp.sediment_removed': true, 'smp.erosion_seen': false, notes: '' }, new Date(2026, 0, 2), null);
    expect(b.smp).toEqual({ sediment_removed: true });
    expect(b).not.toHaveProperty('notes');
    expect(b).not.toHaveProperty('position');
    const c = buildInspection(FORMS.catch_basin_cleaning, 'CB-1', { result: 'pass', 'catch_basin.sump_debris_depth_in': '6' }, new Date(2026, 0, 2), null);
    expect(c.catch_basin).toEqual({ sump_debris_depth_in: 6 });
  });

  it('refuses a value outside the definition before sending', () => {
    const def = FORMS.catch_basin_cleaning;
    expect(invalid(def, { 'catch_basin.sump_debris_depth_in': '-3' })).toEqual([
      { field: 'catch_basin.sump_debris_depth_in', message: '-3 is outside 0 to 240' },
    ]);
    expect(invalid(def, { 'catch_basin.sump_debris_depth_in': '3' })).toEqual([]);
    expect(invalid(FORMS.dry_weather_screening, { 'screening.field_tests.ph': '15' })[0].field).toBe('screening.field_tests.ph');
    expect(invalid(FORMS.dry_weather_screening, { 'screening.odour.severity': '2' })[0].field).toBe('screening.odour.severity');
  });

  it('reopens a refused body as the values that made it', () => {
    const when = new Date(2026, 10, 30, 14, 5);
    for (const def of Object.values(FORMS)) {
      const values: Values = {};
      for (const f of def.fields) values[f.name] = sample(f);
      const body = buildInspection(def, 'X-1', values, when, null);
      expect(buildInspection(def, 'X-1', valuesFrom(def, body), when, null)).toEqual(body);
    }
  });

  it('asks for the result before sending', () => {
    expect(missing(FORMS.catch_basin_cleaning, { result: '', inspected_on: '2026-01-01' })).toEqual(['result']);
    expect(missing(FORMS.catch_basin_cleaning, { result: 'pass', inspected_on: '2026-01-01' })).toEqual([]);
  });

  it('takes the field at fault from the error body, not from its message', () => {
    const e = apiError(400, 'Bad Request', {
      error: 'screening.field_tests.ph: 15 is outside 0 to 14',
      status: 400,
      field: 'screening.field_tests.ph',
    });
    expect(e.field).toBe('screening.field_tests.ph');
    expect(e.message).toBe('screening.field_tests.ph: 15 is outside 0 to 14');
    // A message that reads like `name: …` names no field unless the body does.
    expect(apiError(400, 'Bad Request', { error: 'body: not JSON: EOF', status: 400 }).field).toBeNull();
    expect(fieldOf({ error: 'lon/lat: give both', field: 'lon/lat' })).toBe('lon/lat');
    expect(fieldOf(null)).toBeNull();
    const e500 = apiError(500, 'Internal Server Error', 'not JSON');
    expect([e500.message, e500.field]).toEqual(['500 Internal Server Error', null]);
  });

  it('dates the inspection on the device’s own day', () => {
    expect(localDate(new Date(2026, 0, 5, 23, 59))).toBe('2026-01-05');
  });
});

describe('geometry helpers', () => {
  it('names compass points and distances', () => {
    expect(compass(0)).toBe('N');
    expect(compass(274)).toBe('W');
    expect(compass(-45)).toBe('NW');
    expect(formatDistance(2.8, 'ftUS')).toBe('3 ft');
    expect(formatDistance(6000, 'ftUS')).toBe('1.14 mi');
  });

  it('finds the polygon in an uploaded file and refuses one without', () => {
    const poly = { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] };
    expect(firstPolygon({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [0, 0] } }, { type: 'Feature', geometry: poly }] })).toEqual(poly);
    expect(() => firstPolygon({ type: 'Point', coordinates: [0, 0] })).toThrow(/no Polygon/);
  });
});

// The definition read here by its own walk, not the form builder's: what the API takes
// for one kind, as the paths a form names.
function apiFields(part: string): string[] {
  const out: string[] = [];
  const parts = ['screening', 'catch_basin', 'smp'];
  const walk = (path: string, s0: any): void => {
    const s = resolve(s0);
    if (s.anyOf) {
      out.push(path);
      const rated = s.anyOf.find((a: any) => a.type === 'object');
      for (const k of Object.keys(rated.properties)) if (k !== 'kind') out.push(`${path}.${k}`);
    } else if (s.type === 'object' && s.properties) {
      for (const [k, v] of Object.entries(s.properties)) walk(`${path}.${k}`, v);
    } else out.push(path);
  };
  for (const [k, v] of Object.entries(NEW_INSPECTION.properties as Record<string, any>)) {
    if (FILLED_BY_PAGE.includes(k) || (parts.includes(k) && k !== part)) continue;
    if (k === part) walk(k, v);
    else out.push(k);
  }
  return out.sort();
}

/** A valid value for a field, within its range and choices. */
function sample(f: Field): string | boolean {
  if (f.type === 'checkbox') return true;
  if (f.type === 'select') return f.options![f.options!.length - 1];
  if (f.type === 'number') return String(f.min !== undefined && f.max !== undefined ? (f.min + f.max) / 2 : (f.min ?? 0) + 1);
  if (f.type === 'date') return '2026-05-05';
  if (f.type === 'time') return '09:30';
  return f.name === 'inspector' ? 'Ann Field' : 'x';
}

function has(o: any, path: string): boolean {
  return path.split('.').every((p) => {
    if (o === null || typeof o !== 'object') return false;
    if (!(p in o)) return p === 'severity' || false;
    o = o[p];
    return true;
  });
}

/** The parts of JSON Schema the definition uses, checked against a body: the problems. */
function validate(s0: any, v: any, path: string): string[] {
  const s = resolve(s0);
  if (v === null) return s.nullable ? [] : [`${path}: null`];
  if (s.anyOf) return s.anyOf.some((a: any) => validate(a, v, path).length === 0) ? [] : [`${path}: matches no choice`];
  if (s.enum && !s.enum.includes(v)) return [`${path}: ${v} not in ${s.enum}`];
  switch (s.type) {
    case 'string':
      return typeof v === 'string' ? [] : [`${path}: not text`];
    case 'boolean':
      return typeof v === 'boolean' ? [] : [`${path}: not a boolean`];
    case 'number':
    case 'integer': {
      if (typeof v !== 'number' || (s.type === 'integer' && !Number.isInteger(v))) return [`${path}: not a ${s.type}`];
      if ((s.minimum !== undefined && v < s.minimum) || (s.maximum !== undefined && v > s.maximum)) return [`${path}: out of range`];
      return [];
    }
    case 'object': {
      if (typeof v !== 'object') return [`${path}: not an object`];
      const out: string[] = [];
      for (const r of s.required ?? []) if (!(r in v)) out.push(`${path}.${r}: required`);
      for (const [k, x] of Object.entries(v)) {
        const p = s.properties?.[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
        if (!p) {
          if (s.additionalProperties === false) out.push(`${path}.${k}: not accepted`);
          continue;
        }
        out.push(...validate(p, x, `${path}.${k}`));
      }
      return out;
    }
  }
  return [];
}
