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
    website: t.string({ nullable: true, resolve: (b) => b.website }),
  }),
});

const DgsRef = builder.objectRef<CatalogDgs>('Dgs').implement({
  description: 'The deposit guarantee scheme covering the institution; the limit is per depositor and institution.',
  fields: (t) => ({
    scheme: t.exposeString('scheme'),
    country: t.exposeString('country'),
    limit: t.field({
      type: 'Decimal',
      description: euros('what the scheme covers per depositor and institution'),
      resolve: (d) => d.limit,
    }),
    verified: t.exposeBoolean('verified'),
    source: t.string({ nullable: true, description: 'where the coverage was verified', resolve: (d) => d.source }),
    verifiedAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => d.verifiedAt }),
  }),
});

const InstitutionRef = builder.objectRef<CatalogInstitution>('Institution').implement({
  description: 'A legal, licensed institution with its deposit guarantee and the brands it sells under.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    country: t.exposeString('country'),
    lei: t.string({ nullable: true, resolve: (i) => i.lei }),
    dgs: t.field({ type: DgsRef, resolve: (i) => i.dgs }),
    brands: t.field({ type: [BrandRef], resolve: (i) => i.brands }),
  }),
});

const InstitutionListRef = builder.objectRef<{ items: CatalogInstitution[] }>('InstitutionList').implement({
  fields: (t) => ({
    items: t.field({ type: [InstitutionRef], description: 'sorted by name', resolve: (l) => l.items }),
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
