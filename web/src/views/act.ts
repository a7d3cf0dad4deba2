// How the officer's views run a request: the form's earlier errors are cleared, the
// answer is said in the page's message line (so an earlier error goes once the next
// action succeeds), and a refusal is shown next to the field it names as well as there.
import { ApiError } from '../api';
import { h, table as uiTable, type Ctx } from '../ui';

/** Runs `f`; its result (a sentence) replaces the page's message. On an error the message
 *  says it, and the form's line for the field the server named (`data-error-for`) too.
 *  Resolves to whether it succeeded. */
export async function act(ctx: Ctx, form: HTMLElement | null, f: () => Promise<string>): Promise<boolean> {
  form?.querySelectorAll<HTMLElement>('[data-error-for]').forEach((e) => (e.textContent = ''));
  try {
    ctx.say(await f());
    return true;
  } catch (e) {
    const message = (e as Error).message;
    const field = e instanceof ApiError ? e.field : null;
    // `orders[0]` is shown at the orders' line.
    const names = field ? [field, field.replace(/\[\d+\].*$/, '')] : [];
    const line = names.map((n) => form?.querySelector<HTMLElement>(`[data-error-for="${CSS.escape(n)}"]`)).find((x) => x) ?? null;
    if (line) line.textContent = message;
    ctx.say(field ? `Refused (${field}): ${message}` : message, true);
    return false;
  }
}

/** A labelled input whose name is the request's field, with a line for its error. */
export function field(name: string, label: string, input: HTMLElement): HTMLElement {
  input.id ||= `f-${name.replace(/[^a-z0-9_-]/gi, '-')}`;
  input.setAttribute('name', name);
  return h('div', { class: 'field' }, h('label', { for: input.id, text: label }), input, h('p', { class: 'field-error', 'data-error-for': name, role: 'alert' }));
}

/** A select of `options` (value and text alike, underscores read as spaces). */
export function select(id: string, options: string[], first?: string): HTMLSelectElement {
  return h('select', { id }, ...(first !== undefined ? [h('option', { value: '', text: first })] : []), ...options.map((o) => h('option', { value: o, text: o.replace(/_/g, ' ') })));
}

/** Today in the device's time zone, `YYYY-MM-DD`. */
export function today(): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** The form's non-empty values by field name (text trimmed; empty ones left out). */
export function values(form: HTMLElement): Record<string, string> {
  const out: Record<string, string> = {};
  form.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('[name]').forEach((i) => {
    if (i instanceof HTMLInputElement && i.type === 'checkbox') return;
    const v = i.value.trim();
    if (v) out[i.name] = v;
  });
  return out;
}

/** The page's table, its one-word cells (ids, dates, counts) marked to stay on one line:
 *  `P-000057` must not break at its hyphen. */
export function table<T>(caption: string, rows: T[], cols: [string, (r: T) => string | Node | null][]): HTMLTableElement {
  const t = uiTable(caption, rows, cols);
  t.querySelectorAll('td').forEach((td) => {
    const text = td.textContent?.trim() ?? '';
    if (text && !/\s/.test(text)) td.classList.add('whole');
  });
  return t;
}
