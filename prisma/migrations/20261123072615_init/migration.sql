-- CreateEnum
CREATE TYPE "SourceKind" AS ENUM ('official', 'aggregator', 'manual');

-- CreateEnum
CREATE TYPE "SourceStatus" AS ENUM ('ok', 'failing');

-- CreateEnum
CREATE TYPE "OfferType" AS ENUM ('flexible', 'notice', 'deposit');

-- CreateEnum
CREATE TYPE "Channel" AS ENUM ('direct', 'aggregator', 'platform');

-- CreateEnum
CREATE TYPE "Payout" AS ENUM ('MONTHLY', 'QUARTERLY', 'ANNUALLY', 'AT_MATURITY', 'OTHER');

-- CreateEnum
CREATE TYPE "WithholdingKind" AS ENUM ('none', 'reducible', 'applicable');

-- CreateEnum
CREATE TYPE "OfferStatus" AS ENUM ('active', 'removed');

-- CreateEnum
CREATE TYPE "RateType" AS ENUM ('variable', 'fixed');

-- CreateEnum
CREATE TYPE "TierMode" AS ENUM ('whole', 'marginal');

-- CreateEnum
CREATE TYPE "EventKind" AS ENUM ('rate_up', 'rate_down', 'promotion_start', 'promotion_end', 'new_offer', 'removed_offer', 'dgs_change');

-- CreateTable
CREATE TABLE "Source" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "SourceKind" NOT NULL,
    "url" TEXT NOT NULL,
    "status" "SourceStatus" NOT NULL,
    "lastCheckedAt" TIMESTAMPTZ(3),
    "lastSuccessAt" TIMESTAMPTZ(3),
    "lastError" TEXT,

    CONSTRAINT "Source_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Institution" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "country" CHAR(2) NOT NULL,
    "lei" TEXT,
    "dgsScheme" TEXT NOT NULL,
    "dgsCountry" CHAR(2) NOT NULL,
    "dgsLimit" DECIMAL(16,2) NOT NULL,
    "dgsVerified" BOOLEAN NOT NULL,
    "dgsSource" TEXT,
    "dgsVerifiedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Institution_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Brand" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "country" CHAR(2) NOT NULL,
    "website" TEXT,
    "institutionId" TEXT NOT NULL,

    CONSTRAINT "Brand_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Offer" (
    "id" TEXT NOT NULL,
    "brandId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "type" "OfferType" NOT NULL,
    "termMonths" INTEGER,
    "noticeDays" INTEGER,
    "channel" "Channel" NOT NULL,
    "platform" TEXT,
    "payout" "Payout" NOT NULL,
    "minAmount" DECIMAL(16,2) NOT NULL,
    "maxAmount" DECIMAL(16,2),
    "openToNewCustomers" BOOLEAN NOT NULL,
    "currentAccountRequired" BOOLEAN NOT NULL,
    "annualFee" DECIMAL(16,2) NOT NULL,
    "earlyWithdrawal" BOOLEAN NOT NULL,
    "interestCompounds" BOOLEAN NOT NULL,
    "withholdingKind" "WithholdingKind" NOT NULL,
    "withholdingRate" DECIMAL(7,2),
    "withholdingReducedRate" DECIMAL(7,2),
    "sourceId" TEXT NOT NULL,
    "sourceUrl" TEXT,
    "checkedAt" TIMESTAMPTZ(3) NOT NULL,
    "official" BOOLEAN NOT NULL,
    "confirmed" BOOLEAN NOT NULL,
    "status" "OfferStatus" NOT NULL,
    "firstSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "removedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Offer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RatePlan" (
    "id" SERIAL NOT NULL,
    "offerId" TEXT NOT NULL,
    "validFrom" TIMESTAMPTZ(3) NOT NULL,
    "validTo" TIMESTAMPTZ(3),
    "observedAt" TIMESTAMPTZ(3) NOT NULL,
    "headlineRate" DECIMAL(7,2) NOT NULL,
    "rateType" "RateType" NOT NULL,
    "tierMode" "TierMode" NOT NULL,
    "tiers" JSONB NOT NULL,
    "promotion" JSONB,
    "sourceId" TEXT NOT NULL,

    CONSTRAINT "RatePlan_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChangeEvent" (
    "id" SERIAL NOT NULL,
    "kind" "EventKind" NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "offerId" TEXT,
    "brandId" TEXT,
    "institutionId" TEXT,
    "summary" TEXT NOT NULL,
    "from" JSONB,
    "to" JSONB,

    CONSTRAINT "ChangeEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IngestRun" (
    "id" SERIAL NOT NULL,
    "sha256" TEXT NOT NULL,
    "observedAt" TIMESTAMPTZ(3) NOT NULL,
    "appliedAt" TIMESTAMPTZ(3) NOT NULL,
    "file" TEXT,
    "changed" BOOLEAN NOT NULL,
    "plansAdded" INTEGER NOT NULL,
    "eventsAdded" INTEGER NOT NULL,

    CONSTRAINT "IngestRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DataVersion" (
    "id" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "changedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "DataVersion_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Brand_institutionId_idx" ON "Brand"("institutionId");

-- CreateIndex
CREATE INDEX "Offer_status_idx" ON "Offer"("status");

-- CreateIndex
CREATE INDEX "Offer_brandId_idx" ON "Offer"("brandId");

-- CreateIndex
CREATE INDEX "RatePlan_offerId_validFrom_idx" ON "RatePlan"("offerId", "validFrom" DESC);

-- CreateIndex
CREATE INDEX "RatePlan_validFrom_idx" ON "RatePlan"("validFrom" DESC);

-- CreateIndex
CREATE INDEX "RatePlan_validTo_validFrom_idx" ON "RatePlan"("validTo", "validFrom");

-- CreateIndex
CREATE INDEX "ChangeEvent_at_id_idx" ON "ChangeEvent"("at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "ChangeEvent_offerId_at_idx" ON "ChangeEvent"("offerId", "at" DESC);

-- CreateIndex
CREATE INDEX "ChangeEvent_institutionId_at_idx" ON "ChangeEvent"("institutionId", "at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "IngestRun_sha256_key" ON "IngestRun"("sha256");

-- CreateIndex
CREATE INDEX "IngestRun_observedAt_idx" ON "IngestRun"("observedAt");

-- AddForeignKey
ALTER TABLE "Brand" ADD CONSTRAINT "Brand_institutionId_fkey" FOREIGN KEY ("institutionId") REFERENCES "Institution"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Offer" ADD CONSTRAINT "Offer_brandId_fkey" FOREIGN KEY ("brandId") REFERENCES "Brand"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Offer" ADD CONSTRAINT "Offer_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "Source"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RatePlan" ADD CONSTRAINT "RatePlan_offerId_fkey" FOREIGN KEY ("offerId") REFERENCES "Offer"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RatePlan" ADD CONSTRAINT "RatePlan_sourceId_fkey" FOREIGN KEY ("sourceId") REFERENCES "Source"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChangeEvent" ADD CONSTRAINT "ChangeEvent_offerId_fkey" FOREIGN KEY ("offerId") REFERENCES "Offer"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChangeEvent" ADD CONSTRAINT "ChangeEvent_brandId_fkey" FOREIGN KEY ("brandId") REFERENCES "Brand"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChangeEvent" ADD CONSTRAINT "ChangeEvent_institutionId_fkey" FOREIGN KEY ("institutionId") REFERENCES "Institution"("id") ON DELETE SET NULL ON UPDATE CASCADE;
