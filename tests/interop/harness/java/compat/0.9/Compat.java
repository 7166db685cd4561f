import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The calls of InteropDriver whose API differs between Java Paimon releases, for 0.9.x. Compiled
 * only with the driver against the 0.9 jar; compat/1.4/Compat.java has the same methods for 1.4.x.
 */
final class Compat {
  private Compat() {}

  static final String VERSION = "0.9";

  /** The file's add-row count (0.9 files record it; null when absent). */
  static Long addRowCount(DataFileMeta f) {
    return f.addRowCount().orElse(null);
  }

  /** Primary key without the partition keys, bucket -1. */
  static boolean isCrossPartition(FileStoreTable t) {
    return t.bucketMode() == BucketMode.CROSS_PARTITION;
  }

  /** One compaction of all files of each partition of a bucket=-1 append table (partitions with one file are left). */
  static List<CommitMessage> compactAppendPartitions(FileStoreTable t, Map<BinaryRow, List<DataFileMeta>> byPart)
      throws Exception {
    org.apache.paimon.operation.AppendOnlyFileStoreWrite w =
        (org.apache.paimon.operation.AppendOnlyFileStoreWrite) t.store().newWrite("interop-compact");
    List<CommitMessage> msgs = new ArrayList<>();
    for (Map.Entry<BinaryRow, List<DataFileMeta>> e : byPart.entrySet()) {
      if (e.getValue().size() > 1) {
        msgs.add(new org.apache.paimon.append.UnawareAppendCompactionTask(e.getKey(), e.getValue()).doCompact(t, w));
      }
    }
    w.close();
    return msgs;
  }

  static org.apache.paimon.index.HashBucketAssigner hashBucketAssigner(FileStoreTable t) {
    return new org.apache.paimon.index.HashBucketAssigner(
        t.snapshotManager(), "interop-assigner", t.store().newIndexFileHandler(), 1, 1, 0,
        t.coreOptions().dynamicBucketTargetRowNum());
  }

  /** Java's OrphanFilesClean: files older than the timestamp (its zone's "yyyy-MM-dd HH:mm:ss.SSS"). */
  static List<Path> cleanOrphans(FileStoreTable t, String olderThan, long olderThanMillis, boolean dry)
      throws Exception {
    org.apache.paimon.operation.OrphanFilesClean clean =
        new org.apache.paimon.operation.OrphanFilesClean(t).olderThan(olderThan);
    if (dry) clean.fileCleaner(p -> { });
    return clean.clean();
  }

  /** A one-file append DataFileMeta of the given size and sequence number, for UniversalCompaction.pick. */
  static DataFileMeta pickFile(String name, long size, long seq) {
    return DataFileMeta.forAppend(name, size, 1L, org.apache.paimon.stats.SimpleStats.EMPTY_STATS, seq, seq, 0L,
        org.apache.paimon.manifest.FileSource.APPEND);
  }

  static org.apache.paimon.mergetree.compact.UniversalCompaction universal(int maxSizeAmp, int sizeRatio, int trigger) {
    return new org.apache.paimon.mergetree.compact.UniversalCompaction(maxSizeAmp, sizeRatio, trigger);
  }

  static int bucketKeyHash(BinaryRow key) {
    return KeyAndBucketExtractor.bucketKeyHashCode(key);
  }

  static int bucket(BinaryRow key, int numBuckets) {
    return KeyAndBucketExtractor.bucket(KeyAndBucketExtractor.bucketKeyHashCode(key), numBuckets);
  }

  static org.apache.paimon.operation.PartitionExpire partitionExpire(FileStoreTable t, String user) {
    return t.store().newPartitionExpire(user);
  }

  static byte[] blobBytes(Object v) {
    throw new UnsupportedOperationException("BLOB is not a type of Java Paimon 0.9");
  }

  static Object blob(byte[] data) {
    throw new UnsupportedOperationException("BLOB is not a type of Java Paimon 0.9");
  }

  /** A database's properties as the catalog stores them. */
  static Map<String, String> databaseProperties(org.apache.paimon.catalog.Catalog c, String db) throws Exception {
    return c.loadDatabaseProperties(db);
  }

  /** Java's ANALYZE commit of ``stats``. */
  static void commitStatistics(FileStoreTable t, org.apache.paimon.stats.Statistics stats) throws Exception {
    try (org.apache.paimon.operation.FileStoreCommit commit =
        t.store().newCommit(java.util.UUID.randomUUID().toString())) {
      commit.commitStatistics(stats, Long.MAX_VALUE);
    }
  }
}
