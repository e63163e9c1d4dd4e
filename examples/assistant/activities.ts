// What the assistant's tools run (AMSFLOW_ACTIVITIES=examples/assistant/activities.ts).
import type { ToolCall } from 'amsflow/workflows';

export interface Booking {
  restaurant: string;
  day: string;
  people: number;
}
/** The bookings made (a real bot would call the restaurant's API). */
export const bookings: Booking[] = [];

export async function weather({ city }: { city: string }) {
  return { city, sky: 'sunny', celsius: 21 };
}

export async function bookTable(booking: Booking, call: ToolCall) {
  bookings.push(booking);
  return { booked: true, reference: `T-${call.callId.slice(-6)}` };
}
