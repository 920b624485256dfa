import { runServiceMain } from '@market/shared';
import { filesService } from './service';

runServiceMain(filesService);
