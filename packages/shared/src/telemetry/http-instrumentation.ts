import type { IncomingMessage } from 'node:http';
import { HttpInstrumentation, type HttpInstrumentationConfig } from '@opentelemetry/instrumentation-http';

type Emit = (this: unknown, event: string, ...args: unknown[]) => boolean;
type Request = (this: unknown, ...args: unknown[]) => unknown;
interface PatchInternals {
  _getPatchIncomingRequestFunction(component: string): (original: Emit) => Emit;
  _getPatchOutgoingRequestFunction(component: string): (original: Request) => Request;
}

/**
 * The HTTP instrumentation, with what is not traced handed straight to Node.
 *
 * The instrumentation's own `ignoreIncomingRequestHook` still runs an ignored request in a new
 * context and binds that context to its request and response, wrapping every listener either
 * gets, and an outgoing request parses its options before `ignoreOutgoingRequestHook` is asked
 * (together a tenth of the gateway's CPU per proxied request in a profile). Here an incoming
 * request `traced` refuses, and an outgoing one while `outsideTrace`, skip the instrumentation
 * entirely: nothing in such a request's context holds a span, so the other instrumentations, set
 * to trace only inside a span, make nothing of it either, and no `traceparent` goes on. It
 * replaces the two methods the instrumentation patches `Server#emit` and `request` with
 * (internals of the pinned version): if an upgrade renames them, this throws at start.
 */
export function httpInstrumentation(
  config: HttpInstrumentationConfig,
  traced: (req: IncomingMessage) => boolean,
  outsideTrace: () => boolean,
): HttpInstrumentation {
  const instrumentation = new HttpInstrumentation(config);
  const internals = instrumentation as unknown as PatchInternals;
  const incoming = internals._getPatchIncomingRequestFunction.bind(instrumentation);
  const outgoing = internals._getPatchOutgoingRequestFunction.bind(instrumentation);
  internals._getPatchIncomingRequestFunction = (component) => (original) => {
    const instrumented = incoming(component)(original);
    return function emit(this: unknown, event: string, ...args: unknown[]): boolean {
      if (event === 'request' && !traced(args[0] as IncomingMessage)) return original.apply(this, [event, ...args]);
      return instrumented.apply(this, [event, ...args]);
    };
  };
  internals._getPatchOutgoingRequestFunction = (component) => (original) => {
    const instrumented = outgoing(component)(original);
    return function request(this: unknown, ...args: unknown[]): unknown {
      return (outsideTrace() ? original : instrumented).apply(this, args);
    };
  };
  return instrumentation;
}
