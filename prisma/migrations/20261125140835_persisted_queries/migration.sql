-- CreateTable
CREATE TABLE "PersistedQuery" (
    "hash" CHAR(64) NOT NULL,
    "document" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "lastUsedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "PersistedQuery_pkey" PRIMARY KEY ("hash")
);

-- CreateIndex
CREATE INDEX "PersistedQuery_lastUsedAt_idx" ON "PersistedQuery"("lastUsedAt");
