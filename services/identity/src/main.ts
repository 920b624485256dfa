import { runServiceMain } from '@market/shared';
import { identityService } from './service';

runServiceMain(identityService);
