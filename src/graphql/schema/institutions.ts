// Query.institutions (GET /api/institutions): the legal institutions, their DGS and brands.
import type { CatalogBrand, CatalogDgs, CatalogInstitution } from '../../catalog/types.js';
import { AS_OF_DESCRIPTION, methodField, viewAt } from '../as-of.js';
import { builder } from '../builder.js';
import { euros } from '../scalars.js';

const BrandRef = builder.objectRef<CatalogBrand>('Brand').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    country: t.exposeString('country'),
    website: t.exposeString('website', { nullable: true }),
  }),
});

const DgsRef = builder.objectRef<CatalogDgs>('Dgs').implement({
  description: 'The deposit guarantee scheme covering the institution; the limit is per depositor and institution.',
  fields: (t) => ({
    scheme: t.exposeString('scheme'),
    country: t.exposeString('country'),
    limit: t.expose('limit', {
      type: 'Decimal',
      description: euros('what the scheme covers per depositor and institution'),
    }),
    verified: t.exposeBoolean('verified'),
    source: t.exposeString('source', { nullable: true, description: 'where the coverage was verified' }),
    verifiedAt: t.expose('verifiedAt', { type: 'DateTime', nullable: true }),
  }),
});

const InstitutionRef = builder.objectRef<CatalogInstitution>('Institution').implement({
  description: 'A legal, licensed institution with its deposit guarantee and the brands it sells under.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    country: t.exposeString('country'),
    lei: t.exposeString('lei', { nullable: true }),
    dgs: t.expose('dgs', { type: DgsRef }),
    brands: t.expose('brands', { type: [BrandRef] }),
  }),
});

const InstitutionListRef = builder.objectRef<{ items: CatalogInstitution[] }>('InstitutionList').implement({
  fields: (t) => ({
    items: t.expose('items', { type: [InstitutionRef], description: 'sorted by name' }),
    method: methodField(t),
  }),
});

builder.queryField('institutions', (t) =>
  t.field({
    type: InstitutionListRef,
    description: 'GET /api/institutions: every legal institution with its DGS and brands.',
    args: { asOf: t.arg({ type: 'DateTime', required: false, description: AS_OF_DESCRIPTION }) },
    resolve: async (_root, args, ctx, info) => ({ items: (await viewAt(ctx, args.asOf, info)).catalog.institutions }),
  }),
);
