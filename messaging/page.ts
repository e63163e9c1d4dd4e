/**
 * Reading an update page (spec 2.4): the nested entry/changes structure flattened, and the
 * recipient it reveals.
 */
import {
  type Contact,
  type InboundMessage,
  MESSAGES_FIELD,
  type Misfit,
  type Status,
  type UpdatePage,
} from './schemas';

/** One change of message traffic: what arrived together, in page order. */
export interface PageBatch {
  contacts: Contact[];
  messages: InboundMessage[];
  statuses: Status[];
}

/** The changes of a page that carry message traffic (`field` = "messages"), in order. */
export function pageBatches(page: UpdatePage): PageBatch[] {
  const batches: PageBatch[] = [];
  for (const entry of page.entry) {
    for (const change of entry.changes) {
      if (change.field !== MESSAGES_FIELD) continue;
      batches.push({
        contacts: change.value.contacts ?? [],
        messages: change.value.messages ?? [],
        statuses: change.value.statuses ?? [],
      });
    }
  }
  return batches;
}

/** A flattened update page. */
export interface FlatPage {
  messages: InboundMessage[];
  statuses: Status[];
  contacts: Contact[];
  /** The offset to request next (`next_offset`). */
  nextOffset: number;
  /** The members that did not fit their schema, and what became of them (page-members.ts). */
  misfits: Misfit[];
}

/** Every message, receipt and contact of a page, in page order, plus `next_offset` and the misfits. */
export function flattenPage(page: UpdatePage): FlatPage {
  const flat: FlatPage = {
    messages: [],
    statuses: [],
    contacts: [],
    nextOffset: page.next_offset,
    misfits: page.misfits ?? [],
  };
  for (const batch of pageBatches(page)) {
    flat.messages.push(...batch.messages);
    flat.statuses.push(...batch.statuses);
    flat.contacts.push(...batch.contacts);
  }
  return flat;
}

/**
 * The participant identifier a page reveals as the recipient, or undefined: the last contact's
 * `wa_id`, else the last sender, else the last receipt's `recipient_id`. Passed back unchanged,
 * never interpreted.
 */
export function recipientFromPage(page: UpdatePage): string | undefined {
  let found: string | undefined;
  for (const batch of pageBatches(page)) {
    const contact = batch.contacts.at(-1)?.wa_id;
    const sender = batch.messages.at(-1)?.from;
    const receipt = batch.statuses.at(-1)?.recipient_id;
    found = contact ?? sender ?? receipt ?? found;
  }
  return found;
}

/** The contact of `message` within its batch: the one with its sender's id, else the first. */
export function contactOf(batch: PageBatch, message: InboundMessage): Contact | undefined {
  return batch.contacts.find((c) => c.wa_id === message.from) ?? batch.contacts[0];
}
