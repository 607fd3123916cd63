-- CreateTable
CREATE TABLE "LedgerEntry" (
    "version" INTEGER NOT NULL,
    "observedAt" TIMESTAMPTZ(3) NOT NULL,
    "appliedAt" TIMESTAMPTZ(3) NOT NULL,
    "snapshot" CHAR(64) NOT NULL,
    "stateHash" CHAR(64) NOT NULL,
    "chainHash" CHAR(64) NOT NULL,
    "maxPlanId" INTEGER NOT NULL,
    "maxEventId" INTEGER NOT NULL,

    CONSTRAINT "LedgerEntry_pkey" PRIMARY KEY ("version")
);

-- CreateTable
CREATE TABLE "StateBlock" (
    "version" INTEGER NOT NULL,
    "keyframe" BOOLEAN NOT NULL,
    "bytes" INTEGER NOT NULL,
    "body" BYTEA NOT NULL,

    CONSTRAINT "StateBlock_pkey" PRIMARY KEY ("version")
);

-- CreateIndex
CREATE INDEX "LedgerEntry_observedAt_idx" ON "LedgerEntry"("observedAt");
