// The inspection forms, one per kind, and the request each makes. Field names are the
// API's own paths (`screening.field_tests.ph`), so an error the server sends for a field
// is shown next to that field.

export type FieldType = 'select' | 'text' | 'number' | 'textarea' | 'checkbox';

export interface Field {
  /** The API path of the value (or `notes:<label>` for a checklist line kept in notes). */
  name: string;
  label: string;
  type: FieldType;
  options?: string[];
  required?: boolean;
  min?: number;
  max?: number;
  step?: string;
}

export interface FormDef {
  kind: string;
  title: string;
  /** The facility layer it inspects. */
  layer: string;
  fields: Field[];
}

const RESULT: Field = {
  name: 'result',
  label: 'Result',
  type: 'select',
  options: ['pass', 'fail', 'needs_follow_up'],
  required: true,
};
const NOTES: Field = { name: 'notes', label: 'Notes', type: 'textarea' };

/** Every form, by kind. */
export const FORMS: Record<string, FormDef> = {
  dry_weather_screening: {
    kind: 'dry_weather_screening',
    title: 'Outfall dry-weather screening',
    layer: 'outfalls',
    fields: [
      RESULT,
      { name: 'screening.flow', label: 'Flow', type: 'select', options: ['', 'none', 'trickle', 'moderate', 'substantial'] },
      { name: 'screening.odour', label: 'Odour', type: 'select', options: ['', 'none', 'sewage', 'sulfide', 'rancid', 'petroleum', 'other'] },
      { name: 'screening.colour', label: 'Colour', type: 'text' },
      { name: 'screening.turbidity', label: 'Turbidity', type: 'select', options: ['', 'none', 'slight cloudiness', 'cloudy', 'opaque'] },
      { name: 'screening.floatables', label: 'Floatables', type: 'select', options: ['', 'none', 'sewage', 'suds', 'oil sheen', 'trash'] },
      { name: 'screening.deposits', label: 'Deposits', type: 'select', options: ['', 'none', 'sediment', 'staining', 'algae'] },
      { name: 'screening.field_tests.ph', label: 'pH', type: 'number', step: 'any' },
      { name: 'screening.field_tests.ammonia_mg_l', label: 'Ammonia (mg/L)', type: 'number', step: 'any' },
      { name: 'screening.field_tests.chlorine_mg_l', label: 'Chlorine (mg/L)', type: 'number', step: 'any' },
      { name: 'screening.field_tests.detergents_mg_l', label: 'Detergents (mg/L)', type: 'number', step: 'any' },
      { name: 'screening.field_tests.potassium_mg_l', label: 'Potassium (mg/L)', type: 'number', step: 'any' },
      { name: 'screening.field_tests.conductivity_us_cm', label: 'Conductivity (µS/cm)', type: 'number', step: 'any' },
      { name: 'screening.field_tests.temperature_c', label: 'Water temperature (°C)', type: 'number', step: 'any' },
      NOTES,
    ],
  },
  smp_maintenance: {
    kind: 'smp_maintenance',
    title: 'SMP maintenance inspection',
    layer: 'smps',
    fields: [
      RESULT,
      { name: 'notes:Sediment removed', label: 'Sediment removed', type: 'checkbox' },
      { name: 'notes:Vegetation maintained', label: 'Vegetation maintained', type: 'checkbox' },
      { name: 'notes:Inlet and outlet clear', label: 'Inlet and outlet clear', type: 'checkbox' },
      { name: 'notes:Erosion seen', label: 'Erosion seen', type: 'checkbox' },
      NOTES,
    ],
  },
  catch_basin_cleaning: {
    kind: 'catch_basin_cleaning',
    title: 'Catch basin cleaning',
    layer: 'catch_basins',
    fields: [
      RESULT,
      { name: 'notes:Sump depth of debris (in)', label: 'Sump depth of debris (in)', type: 'number', step: 'any' },
      { name: 'notes:Grate damaged', label: 'Grate damaged', type: 'checkbox' },
      { name: 'notes:Oil or odour', label: 'Oil or odour', type: 'checkbox' },
      NOTES,
    ],
  },
};

/** The kind of inspection a facility layer gets (none for manholes). */
export function kindFor(layer: string): FormDef | null {
  return Object.values(FORMS).find((f) => f.layer === layer) ?? null;
}

/** A form's values as the page read them: text for every field, booleans for checkboxes. */
export type Values = Record<string, string | boolean>;

/** The `POST /api/inspections` body for a form's values. Empty values are left out (the
 *  API then stores nothing for them); numbers are sent as numbers, so a wrong one is the
 *  server's to refuse with the field's name. Checklist lines go into the notes. */
export function buildInspection(
  def: FormDef,
  assetId: string,
  values: Values,
  when: Date,
  position: { lon: number; lat: number } | null,
): Record<string, unknown> {
  const body: Record<string, any> = {
    asset_id: assetId,
    kind: def.kind,
    inspected_on: localDate(when),
    result: String(values.result ?? ''),
  };
  const checklist: string[] = [];
  for (const f of def.fields) {
    const v = values[f.name];
    if (f.name === 'result') continue;
    if (f.name.startsWith('notes:')) {
      const label = f.name.slice(6);
      if (f.type === 'checkbox') {
        if (v === true) checklist.push(`${label}: yes`);
      } else if (v !== undefined && v !== '') checklist.push(`${label}: ${v}`);
      continue;
    }
    if (v === undefined || v === '' || v === false) continue;
    const path = f.name.split('.');
    let o = body;
    for (const p of path.slice(0, -1)) o = o[p] ??= {};
    const leaf = path[path.length - 1];
    o[leaf] = f.type === 'number' ? Number(v) : v;
  }
  const notes = [checklist.join('; '), (values.notes as string) || ''].filter((s) => s).join('\n');
  if (notes) body.notes = notes;
  else delete body.notes;
  if (position) body.position = { lon: round(position.lon, 7), lat: round(position.lat, 7) };
  body.observed_at = when.toISOString();
  return body;
}

function round(x: number, d: number): number {
  const k = 10 ** d;
  return Math.round(x * k) / k;
}

/** The date in the device's own time zone, `YYYY-MM-DD` (the day the inspector saw). */
export function localDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** Checks what the page can check before sending: the required fields. */
export function missing(def: FormDef, values: Values): string[] {
  return def.fields.filter((f) => f.required && !values[f.name]).map((f) => f.name);
}
