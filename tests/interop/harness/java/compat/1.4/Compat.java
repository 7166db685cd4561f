import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The calls of InteropDriver whose API differs between Java Paimon releases, for 1.4.x. Same
 * methods as compat/0.9/Compat.java; compiled only with the driver against paimon-bundle 1.4.x.
 */
final class Compat {
  private Compat() {}

  static final String VERSION = "1.4";

  /** 1.x data files carry no add-row count. */
  static Long addRowCount(DataFileMeta f) {
    return null;
  }

  /** Primary key without the partition keys, bucket -1 (1.x calls the mode KEY_DYNAMIC). */
  static boolean isCrossPartition(FileStoreTable t) {
    return t.bucketMode() == BucketMode.KEY_DYNAMIC;
  }

  static List<CommitMessage> compactAppendPartitions(FileStoreTable t, Map<BinaryRow, List<DataFileMeta>> byPart)
      throws Exception {
    org.apache.paimon.operation.BaseAppendFileStoreWrite w =
        (org.apache.paimon.operation.BaseAppendFileStoreWrite) t.store().newWrite("interop-compact");
    List<CommitMessage> msgs = new ArrayList<>();
    for (Map.Entry<BinaryRow, List<DataFileMeta>> e : byPart.entrySet()) {
      if (e.getValue().size() > 1) {
        msgs.add(new org.apache.paimon.append.AppendCompactTask(e.getKey(), e.getValue()).doCompact(t, w));
      }
    }
    w.close();
    return msgs;
  }

  static org.apache.paimon.index.HashBucketAssigner hashBucketAssigner(FileStoreTable t) {
    return new org.apache.paimon.index.HashBucketAssigner(
        t.snapshotManager(), "interop-assigner", t.store().newIndexFileHandler(), 1, 1, 0,
        t.coreOptions().dynamicBucketTargetRowNum(),
        t.coreOptions().dynamicBucketMaxBuckets() == null ? -1 : t.coreOptions().dynamicBucketMaxBuckets());
  }

  /** Java's LocalOrphanFilesClean: files modified before the epoch millis (the text form is 0.9's). */
  static List<Path> cleanOrphans(FileStoreTable t, String olderThan, long olderThanMillis, boolean dry)
      throws Exception {
    return new org.apache.paimon.operation.LocalOrphanFilesClean(t, olderThanMillis, dry)
        .clean().getDeletedFilesPath();
  }

  static DataFileMeta pickFile(String name, long size, long seq) {
    return DataFileMeta.forAppend(name, size, 1L, org.apache.paimon.stats.SimpleStats.EMPTY_STATS, seq, seq, 0L,
        java.util.Collections.emptyList(), null, org.apache.paimon.manifest.FileSource.APPEND, null, null, null,
        null);
  }

  /** No early full compaction, no off-peak ratio: the 0.9 picker's inputs. */
  static org.apache.paimon.mergetree.compact.UniversalCompaction universal(int maxSizeAmp, int sizeRatio, int trigger) {
    return new org.apache.paimon.mergetree.compact.UniversalCompaction(maxSizeAmp, sizeRatio, trigger, null, null);
  }

  static int bucketKeyHash(BinaryRow key) {
    return key.hashCode();
  }

  /** The default bucket function (bucket-function.type = default). */
  static int bucket(BinaryRow key, int numBuckets) {
    return new org.apache.paimon.bucket.DefaultBucketFunction().bucket(key, numBuckets);
  }

  static org.apache.paimon.operation.PartitionExpire partitionExpire(FileStoreTable t, String user) {
    return t.store().newPartitionExpire(user, t);
  }

  static byte[] blobBytes(Object v) {
    return ((org.apache.paimon.data.Blob) v).toData();
  }

  static Object blob(byte[] data) {
    return org.apache.paimon.data.Blob.fromData(data);
  }

  /** A database's properties as the catalog stores them. */
  static Map<String, String> databaseProperties(org.apache.paimon.catalog.Catalog c, String db) throws Exception {
    return c.getDatabase(db).options();
  }

  /** Java's ANALYZE commit of ``stats``. */
  static void commitStatistics(FileStoreTable t, org.apache.paimon.stats.Statistics stats) throws Exception {
    try (org.apache.paimon.operation.FileStoreCommit commit =
        t.store().newCommit(java.util.UUID.randomUUID().toString(), t)) {
      commit.commitStatistics(stats, Long.MAX_VALUE);
    }
  }
}
