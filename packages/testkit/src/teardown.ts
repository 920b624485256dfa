// Loaded by the jest preset after the test framework (setupFilesAfterEnv): runs once the file's
// own hooks are done and stops whatever the file started and did not stop.
import { closeLeftovers } from './leftovers';

afterAll(closeLeftovers);
