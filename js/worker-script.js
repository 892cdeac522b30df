// The script of the dedicated Worker the main-thread API starts for one
// database (./page/client.js): the Worker side of ./serve.js, with no setup of
// its own (open()'s `setup` option still applies).
import { serve } from './serve.js';

serve();
