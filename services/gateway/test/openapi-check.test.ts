import { DocumentCheck, OpenApiMismatch } from '@market/testkit';
import { gatewayOpenApiDocument } from '../src/openapi';

/**
 * The check every end-to-end answer goes through (testkit): it must refuse what the served
 * document does not say, or the suites' green would prove nothing about the document.
 */
describe('holding answers against the served OpenAPI document', () => {
  const check = new DocumentCheck(JSON.parse(JSON.stringify(gatewayOpenApiDocument())));
  const base = 'http://127.0.0.1:1';
  const json = 'application/json; charset=utf-8';
  const problemType = 'application/problem+json; charset=utf-8';
  const problem = (status: number, code: string) =>
    JSON.stringify({ type: 'https://errors.market.example/x', title: 't', status, code, detail: 'd', instance: '/x' });
  const adminOrder = (dispute: unknown) =>
    JSON.stringify({
      id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b',
      listing_id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5c',
      renter_id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5d',
      owner_id: '0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5e',
      dispute,
    });

  it('passes a documented problem and throws on an undocumented status, naming operation and status', () => {
    expect(() =>
      check.check({ method: 'GET', url: `${base}/api/orders/x`, status: 400, contentType: problemType, text: problem(400, 'VALIDATION_FAILED') }),
    ).not.toThrow();
    const undocumented = () =>
      check.check({ method: 'GET', url: `${base}/api/orders/x`, status: 422, contentType: problemType, text: problem(422, 'NOPE') });
    expect(undocumented).toThrow(OpenApiMismatch);
    expect(undocumented).toThrow(/getOrder \(GET \/api\/orders\/\{id\}\) does not document status 422/);
  });

  it('throws with the Ajv errors when a body breaks its schema', () => {
    const noCode = JSON.stringify({ type: 't', title: 't', status: 404, detail: 'd', instance: '/x' });
    expect(() => check.check({ method: 'GET', url: `${base}/api/orders/x`, status: 404, contentType: problemType, text: noCode })).toThrow(
      /breaks the documented schema[\s\S]*"missingProperty": "code"/,
    );
    // a field that may be null must say so: the schema of the admin order detail, broken at the dispute
    expect(() => check.check({ method: 'GET', url: `${base}/api/admin/orders/x`, status: 200, contentType: json, text: adminOrder('not a dispute') })).toThrow(
      /adminGetOrder[\s\S]*\/dispute/,
    );
  });

  it('refuses a media type the status does not document, and a path or method no contract has unless it is a 404 or 405 problem', () => {
    expect(() => check.check({ method: 'GET', url: `${base}/api/orders/x`, status: 404, contentType: 'text/html', text: '<p>' })).toThrow(
      /documents application\/problem\+json for 404, not text\/html/,
    );
    expect(() => check.check({ method: 'GET', url: `${base}/api/nope`, status: 404, contentType: problemType, text: problem(404, 'NOT_FOUND') })).not.toThrow();
    expect(() => check.check({ method: 'GET', url: `${base}/api/nope`, status: 200, contentType: json, text: '{}' })).toThrow(/no operation/);
    expect(() =>
      check.check({ method: 'PUT', url: `${base}/api/orders`, status: 405, contentType: problemType, text: problem(405, 'METHOD_NOT_ALLOWED') }),
    ).not.toThrow();
  });

  it('takes a literal path before a template that also matches it', () => {
    // `/api/listings/default-upload-screenshot` is not `/api/listings/{id}`, whose 200 is JSON
    const screenshot = { method: 'GET', url: `${base}/api/listings/default-upload-screenshot`, status: 200, contentType: 'image/png', text: undefined };
    expect(() => check.check(screenshot)).not.toThrow();
    expect(() => check.check({ ...screenshot, url: `${base}/api/listings/0193a1b2` })).toThrow(/getListing[\s\S]*not image\/png/);
  });
});
