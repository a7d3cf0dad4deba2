import { describe, expect, it } from 'vitest';
import { inPolygon, inRing, positions, sideOf } from '../src/geo';

const square: [number, number][] = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]];
const hole: [number, number][] = [[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]];

describe('the jurisdiction filter', () => {
  it('puts a position inside or outside a ring', () => {
    expect(inRing([5, 5], square)).toBe(true);
    expect(inRing([15, 5], square)).toBe(false);
    expect(inRing([-0.1, 5], square)).toBe(false);
  });
  it('leaves out a polygon\'s holes and reads multi-polygons', () => {
    const withHole = { type: 'Polygon', coordinates: [square, hole] };
    expect(inPolygon([5, 5], withHole)).toBe(false);
    expect(inPolygon([2, 2], withHole)).toBe(true);
    const two = { type: 'MultiPolygon', coordinates: [[square], [[[20, 0], [30, 0], [30, 10], [20, 0]]]] };
    expect(inPolygon([28, 2], two)).toBe(true);
    expect(inPolygon([15, 5], two)).toBe(false);
  });
  it('finds a line inside when any of its positions is', () => {
    const area = [{ type: 'Polygon', coordinates: [square] }];
    expect(positions({ coordinates: [[[1, 2], [3, 4]], [[5, 6]]] })).toEqual([[1, 2], [3, 4], [5, 6]]);
    expect(sideOf({ coordinates: [[20, 20], [5, 5]] }, area)).toBe('inside');
    expect(sideOf({ coordinates: [[20, 20], [30, 30]] }, area)).toBe('outside');
    expect(sideOf(null, area)).toBe('outside');
    expect(sideOf({ coordinates: [5, 5] }, [])).toBe('outside');
  });
});
