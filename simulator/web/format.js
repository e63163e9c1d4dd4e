// Formatting for the web chat: timestamps to ms, clock times, day labels ("Today", "Yesterday",
// a weekday, a date), file sizes, and a document's kind and label from its name and MIME type.
// @ts-check

/**
 * Epoch ms of a timestamp given in seconds or ms, as a number, a decimal string or a date string;
 * now if it is missing or unreadable.
 * @param {string | number | null | undefined} ts
 */
export function toMillis(ts) {
  if (ts === undefined || ts === null || ts === '') return Date.now();
  if (typeof ts === 'number') return ts < 1e11 ? ts * 1000 : ts;
  if (/^\d+(\.\d+)?$/.test(String(ts))) {
    const n = Number(ts);
    return n < 1e11 ? n * 1000 : n;
  }
  const parsed = Date.parse(ts);
  return Number.isNaN(parsed) ? Date.now() : parsed;
}

export const timeFormat = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
const weekdayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'long' });
const dateFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'long', year: 'numeric' });

/**
 * The local calendar day of a moment, as a key.
 * @param {number} ms
 */
export function dayKey(ms) {
  const d = new Date(ms);
  return `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;
}

/**
 * The label of a day separator.
 * @param {number} ms
 */
export function dayLabel(ms) {
  /** @param {Date} d */
  const startOf = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((startOf(new Date()) - startOf(new Date(ms))) / 86400000);
  if (days === 0) return 'Today';
  if (days === 1) return 'Yesterday';
  if (days > 1 && days < 7) return weekdayFormat.format(ms);
  return dateFormat.format(ms);
}

/** @param {number} n */
export function formatBytes(n) {
  if (!Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The kind of a document (for the colour of its icon) and the label on it.
 * @param {string} name
 * @param {string | undefined} mime
 * @returns {{ kind: string, label: string }}
 */
export function docKind(name, mime) {
  const ext = (name.split('.').pop() || '').toLowerCase();
  const m = mime || '';
  if (ext === 'pdf' || m === 'application/pdf') return { kind: 'pdf', label: 'PDF' };
  if (/^(doc|docx|odt|rtf)$/.test(ext) || /word/.test(m))
    return { kind: 'doc', label: ext.toUpperCase() || 'DOC' };
  if (/^(xls|xlsx|ods|csv)$/.test(ext) || /sheet|excel/.test(m))
    return { kind: 'sheet', label: ext.toUpperCase() };
  if (/^(ppt|pptx|odp)$/.test(ext) || /presentation|powerpoint/.test(m))
    return { kind: 'slides', label: ext.toUpperCase() };
  if (ext && ext !== name.toLowerCase() && ext.length <= 4)
    return { kind: 'other', label: ext.toUpperCase() };
  return { kind: 'other', label: 'FILE' };
}
