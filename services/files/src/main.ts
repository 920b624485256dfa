import './telemetry';
import { runServiceMain } from '@market/shared/service';
import { filesService } from './service';

runServiceMain(filesService);
