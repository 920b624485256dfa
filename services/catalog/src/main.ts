import { runServiceMain } from '@market/shared';
import { catalogService } from './service';

runServiceMain(catalogService);
