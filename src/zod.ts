import { en } from 'zod/locales';
import { z } from 'zod/mini';

// The schemas of what a start loads use zod's mini API: the classic one gives every schema its own
// methods, and stays in the chunks loaded lazily (docs/architecture.md#memory). Without a locale mini's
// messages are generic ("Invalid input"); the classic API sets English itself when it loads.
z.config(en());

export { z };
