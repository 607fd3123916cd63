// Imports every type (each registers itself with the builder) and builds the schema.
import { builder } from '../builder.js';
import '../scalars.js';
import './offer.js';
import './products.js';
import './plan.js';
import './detail.js';
import './institutions.js';
import './history.js';
import './changes.js';
import './meta.js';
import './ledger.js';

export const schema = builder.toSchema({ sortSchema: false });
