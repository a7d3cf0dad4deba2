import { describe, expect, it } from 'vitest';
import { buildInspection, FORMS, kindFor, localDate, missing } from '../src/forms';
import { apiError, fieldOf } from '../src/api';
import { compass, firstPolygon, formatDistance } from '../src/geo';

describe('the inspection forms', () => {
  it('has one form per facility kind that takes an inspection', () => {
    expect(kindFor('outfalls')?.kind).toBe('dry_weather_screening');
    expect(kindFor('smps')?.kind).toBe('smp_maintenance');
    expect(kindFor('catch_basins')?.kind).toBe('catch_basin_cleaning');
    expect(kindFor('manholes')).toBeNull();
  });

  it('builds the screening the API takes, numbers as numbers, empty values left out', () => {
    const when = new Date(2026, 10, 30, 14, 5);
    const b = buildInspection(FORMS.dry_weather_screening, 'OF-1', {
      result: 'fail', 'screening.flow': 'trickle', 'screening.odour': '', 'screening.field_tests.ph': '6.5',
      'screening.field_tests.ammonia_mg_l': '0', notes: 'grey water',
    }, when, { lon: -73.123456789, lat: 41.2 });
    expect(b).toEqual({
      asset_id: 'OF-1', kind: 'dry_weather_screening', inspected_on: '2026-11-30', result: 'fail',
      screening: { flow: 'trickle', field_tests: { ph: 6.5, ammonia_mg_l: 0 } },
      notes: 'grey water', position: { lon: -73.1234568, lat: 41.2 }, observed_at: when.toISOString(),
    });
  });

  it('puts an SMP checklist into the notes', () => {
    const b = buildInspection(FORMS.smp_maintenance, 'SMP-1', { result: 'pass', 'notes:Sediment removed': true, 'notes:Erosion seen': false, notes: '' }, new Date(2026, 0, 2), null);
    expect(b.notes).toBe('Sediment removed: yes');
    expect(b).not.toHaveProperty('screening');
    expect(b).not.toHaveProperty('position');
  });

  it('asks for the result before sending', () => {
    expect(missing(FORMS.catch_basin_cleaning, { result: '' })).toEqual(['result']);
    expect(missing(FORMS.catch_basin_cleaning, { result: 'pass' })).toEqual([]);
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
