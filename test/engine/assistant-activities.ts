/**
 * The assistant's activities for the crash suite (`AMSFLOW_ACTIVITIES`), in a worker process that
 * may be killed: every booking is a line appended to the file `AMSFLOW_TEST_BOOKINGS` names, so the
 * test counts runs across processes.
 */
import { appendFileSync } from 'node:fs';

export async function weather({ city }: { city: string }) {
  return { city, sky: 'sunny', celsius: 21 };
}

export async function bookTable(booking: object, call: { callId: string }) {
  appendFileSync(
    process.env.AMSFLOW_TEST_BOOKINGS!,
    `${JSON.stringify({ ...booking, callId: call.callId })}\n`,
  );
  return { booked: true };
}
