// Small plane-and-sphere helpers the views share.

/** The eight compass points, for a bearing in degrees clockwise from north. */
export function compass(bearingDeg: number): string {
  const pts = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'];
  const i = Math.round((((bearingDeg % 360) + 360) % 360) / 45) % 8;
  return pts[i];
}

/** A distance in the registry's unit, shown with a sensible precision. */
export function formatDistance(d: number, unit: string): string {
  const u = unit === 'ftUS' || unit === 'ft' ? 'ft' : unit;
  if (u === 'ft' && d >= 5280) return `${(d / 5280).toFixed(2)} mi`;
  if (u === 'm' && d >= 1000) return `${(d / 1000).toFixed(2)} km`;
  return `${Math.round(d)} ${u}`;
}

/** The first Polygon or MultiPolygon in a GeoJSON object (a geometry, a Feature or a
 *  FeatureCollection), or an error naming what was found instead. */
export function firstPolygon(gj: any): { type: 'Polygon' | 'MultiPolygon'; coordinates: any } {
  const walk = (g: any): any => {
    if (!g || typeof g !== 'object') return null;
    if (g.type === 'Polygon' || g.type === 'MultiPolygon') return { type: g.type, coordinates: g.coordinates };
    if (g.type === 'Feature') return walk(g.geometry);
    if (g.type === 'FeatureCollection') {
      for (const f of g.features ?? []) {
        const p = walk(f);
        if (p) return p;
      }
    }
    return null;
  };
  const p = walk(gj);
  if (!p) throw new Error('the file holds no Polygon or MultiPolygon');
  return p;
}

/** Whether a position lies inside a polygon ring (even-odd rule; a point on an edge may
 *  fall either way, which a boundary filter can live with). */
export function inRing(p: [number, number], ring: [number, number][]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Whether a position lies inside a Polygon or MultiPolygon (outside its holes). */
export function inPolygon(p: [number, number], g: { type: string; coordinates?: any }): boolean {
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : [];
  return polys.some((rings: [number, number][][]) => inRing(p, rings[0]) && !rings.slice(1).some((h) => inRing(p, h)));
}

/** Every position of a geometry (a point, a line, a polygon, or a multi- of them). */
export function positions(g: { coordinates?: any } | null | undefined): [number, number][] {
  const out: [number, number][] = [];
  const visit = (c: any) => (typeof c?.[0] === 'number' ? out.push([c[0], c[1]]) : c?.forEach?.(visit));
  if (g) visit(g.coordinates);
  return out;
}

/** Where a feature lies against a set of areas (the registry's boundary, a watershed):
 *  `inside` when any of its positions is inside one of them, else `outside`. */
export function sideOf(g: { coordinates?: any } | null | undefined, areas: { type: string; coordinates?: any }[]): 'inside' | 'outside' {
  return positions(g).some((p) => areas.some((a) => inPolygon(p, a))) ? 'inside' : 'outside';
}
