// The web chat's shared state (one mutable object every module reads and writes) and the JSDoc
// types of the data it holds: the conversation as the control API answers it, optimistic sends
// and the attachment being composed.
// @ts-check

/**
 * The message object of an entry, by its type: text `body`, media `id`/`caption`/`filename`/
 * `mime_type`, audio `voice`, reaction `message_id`/`emoji`.
 * @typedef {object} Payload
 * @property {string} [body]
 * @property {string} [id]
 * @property {string} [caption]
 * @property {string} [filename]
 * @property {string} [mime_type]
 * @property {boolean} [voice]
 * @property {string} [message_id]
 * @property {string} [emoji]
 */

/**
 * One entry of `GET _control/conversation`, or the local stand-in of a message being sent (which
 * has no `id` yet). `direction` 'in' is the human's message to the agent, 'out' the agent's.
 * @typedef {object} Entry
 * @property {number} [seq]
 * @property {'in' | 'out'} direction
 * @property {string} [id]
 * @property {string} type
 * @property {Payload} [payload]
 * @property {string | number} [timestamp] epoch seconds as a decimal string, as on the wire
 * @property {{ id?: string, message_id?: string, from?: string }} [context] the quoted message
 * @property {string} [status] out only: the latest receipt
 * @property {boolean} [markedRead] in only: the agent marked it read
 */

/**
 * @typedef {object} Conversation
 * @property {{ id: string, name?: string, participant?: string }} [agent]
 * @property {{ participant?: string, name?: string }} [creator]
 * @property {boolean} [typing]
 * @property {Entry[]} [entries]
 */

/**
 * A message the human sent that the conversation does not show yet (drawn at once, "pending").
 * @typedef {object} Pending
 * @property {string} key
 * @property {Entry} entry
 * @property {number} createdAt
 * @property {string} [id] the simulator's id, once it answered
 * @property {string} [previewUrl] object URL of the attached file
 * @property {string} [fileName]
 * @property {string} [mime]
 * @property {boolean} [uploading]
 * @property {boolean} [failed]
 * @property {string} [error]
 */

/**
 * The file attached in the composer.
 * @typedef {{ file: File, kind: string, previewUrl: string }} Attachment
 */

export const state = {
  /** @type {Conversation | null} */
  conversation: null,
  /** @type {Map<string | undefined, Entry>} */
  entriesById: new Map(),
  /** @type {Map<string, string>} message id -> emoji (the human's current reaction) */
  reactions: new Map(),
  connected: false,
  /** @type {Entry | null} entry being quoted */
  replyTo: null,
  /** @type {Attachment | null} */
  attachment: null,
  /** @type {Pending[]} optimistic sends */
  pending: [],
  /** Keep the view pinned to the newest message. */
  stick: true,
  unseenBelow: 0,
  /** @type {Map<string, number>} agent message id -> ms when first rendered while visible */
  firstSeen: new Map(),
  /** @type {Map<string, number>} agent message id -> attempts */
  readRequested: new Map(),
  /** @type {string | null} message id the emoji picker is open for */
  pickerFor: null,
  lastCount: 0,
};
