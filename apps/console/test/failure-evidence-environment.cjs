// The browser tests' jest environment: node's, plus a call, when a test or hook fails, to the
// `failureEvidence` the console session sets on the test's global (a screenshot and what the page
// met). A browser flow that times out says only which wait ran out; this says what was on screen.
'use strict';
const { TestEnvironment } = require('jest-environment-node');

class FailureEvidenceEnvironment extends TestEnvironment {
  async handleTestEvent(event) {
    if (event.name !== 'test_fn_failure' && event.name !== 'hook_failure') return;
    const capture = this.global.failureEvidence;
    if (typeof capture !== 'function') return;
    const name = event.name === 'test_fn_failure' ? event.test.name : `${event.hook.type} hook`;
    // evidence is a help, never a second failure: a browser already gone is left at that
    await Promise.resolve(capture(name)).catch(() => undefined);
  }
}

module.exports = FailureEvidenceEnvironment;
