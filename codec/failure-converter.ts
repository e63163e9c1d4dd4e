/**
 * The failure converter of an encrypting data converter: failure messages and stack traces go
 * into an encoded payload (which the codec encrypts) instead of the failure's plain fields. It is
 * named by path (`failureConverterPath`) because workflow bundles load it too, so this module
 * imports nothing but `@temporalio/common`.
 */
import { DefaultFailureConverter } from '@temporalio/common';

/** `DefaultFailureConverter` with `encodeCommonAttributes`. */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
