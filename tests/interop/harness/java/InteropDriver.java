import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.codegen.CodeGenUtils;
import org.apache.paimon.codegen.Projection;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeChecks;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Test driver around Java Paimon (0.9 or 1.4; the API calls that differ are in compat/VERSION/Compat.java)
 * for the paimon-cli interop tests.
 *
 * <p>stdin: a JSON array of request objects, each with an "op". stdout: a JSON array with one
 * result object per request, in order. A failing request yields {"error": "Class: message",
 * "trace": [...]} in its slot; the other requests still run. Values use the canonical JSON
 * encoding described in ../README.md.
 */
public class InteropDriver {

  static final ObjectMapper JSON = new ObjectMapper();
  static final JsonNodeFactory NF = JsonNodeFactory.instance;
  static final String KIND = "_row_kind";

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    System.setOut(System.err); // stray prints of libraries must not corrupt the JSON answer
    if (args.length > 0 && args[0].equals("--serve")) {
      // one batch per line in, one answer per line out, until stdin closes: the harness keeps
      // this JVM warm across tests (JSON text written compactly never holds a raw newline)
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isEmpty()) continue;
        out.print(JSON.writeValueAsString(runBatch(JSON.readTree(line))));
        out.print('\n');
        out.flush();
      }
      System.exit(0);
    }
    out.print(JSON.writeValueAsString(runBatch(JSON.readTree(System.in))));
    out.flush();
    System.exit(0);
  }

  static ArrayNode runBatch(JsonNode requests) {
    if (!requests.isArray()) {
      throw new IllegalArgumentException("stdin must hold a JSON array of requests");
    }
    ArrayNode results = NF.arrayNode();
    for (JsonNode req : requests) {
      ObjectNode res;
      try {
        res = handle(req);
      } catch (Throwable t) {
        res = NF.objectNode();
        res.put("error", t.getClass().getName() + ": " + t.getMessage());
        ArrayNode trace = res.putArray("trace");
        Throwable c = t;
        int n = 0;
        while (c != null && n < 40) {
          if (c != t) trace.add("Caused by: " + c);
          for (StackTraceElement e : c.getStackTrace()) {
            if (n++ >= 40) break;
            trace.add(e.toString());
          }
          c = c.getCause();
        }
      }
      results.add(res);
    }
    return results;
  }

  static ObjectNode handle(JsonNode req) throws Exception {
    String op = text(req, "op", null);
    if (op == null) throw new IllegalArgumentException("request without \"op\": " + req);
    switch (op) {
      case "read": return opRead(req);
      case "create_table": return opCreateTable(req);
      case "write": return opWrite(req);
      case "compact": return opCompact(req);
      case "snapshots": return opSnapshots(req);
      case "files": return opFiles(req);
      case "schema": return opSchema(req);
      case "bucket_of": return opBucketOf(req);
      case "universal_pick": return opUniversalPick(req);
      case "audit": return opAudit(req);
      case "expire": return opExpire(req);
      case "alter": return opAlter(req);
      case "catalog": return opCatalog(req);
      case "catalog_calls": return CatalogCalls.run(req);
      case "create_tag": return opCreateTag(req);
      case "delete_tag": return opDeleteTag(req);
      case "rollback": return opRollback(req);
      case "stream": return opStream(req);
      case "consumer": return opConsumer(req);
      case "orphan_clean": return opOrphanClean(req);
      case "create_branch": return opCreateBranch(req);
      case "fast_forward": return opFastForward(req);
      case "delete_branch": return opDeleteBranch(req);
      case "partitions": return opPartitions(req);
      case "tags": return opTags(req);
      case "success_file": return opSuccessFile(req);
      case "expire_partitions": return opExpirePartitions(req);
      case "system_table": return opSystemTable(req);
      case "analyze": return opAnalyze(req);
      default: throw new IllegalArgumentException("unknown op: " + op);
    }
  }

  // ---------------------------------------------------------------- request helpers

  static String text(JsonNode n, String key, String dflt) {
    JsonNode v = n.get(key);
    return v == null || v.isNull() ? dflt : v.asText();
  }

  static boolean flag(JsonNode n, String key, boolean dflt) {
    JsonNode v = n.get(key);
    return v == null || v.isNull() ? dflt : v.asBoolean();
  }

  static List<String> strings(JsonNode n, String key) {
    List<String> out = new ArrayList<>();
    JsonNode v = n.get(key);
    if (v != null) v.forEach(x -> out.add(x.asText()));
    return out;
  }

  static Map<String, String> options(JsonNode n) {
    Map<String, String> m = new LinkedHashMap<>();
    JsonNode v = n.get("options");
    if (v != null && !v.isNull()) v.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
    return m;
  }

  /** The filesystem catalog of "warehouse", or with "catalog": {options} (metastore=jdbc|hive, uri, ...) that one. */
  static Catalog catalog(JsonNode req) throws Exception {
    String wh = text(req, "warehouse", null);
    if (wh == null) throw new IllegalArgumentException("missing \"warehouse\"");
    JsonNode cat = req.get("catalog");
    if (cat == null || cat.isNull()) return CatalogFactory.createCatalog(CatalogContext.create(new Path(wh)));
    org.apache.paimon.options.Options o = new org.apache.paimon.options.Options();
    cat.fields().forEachRemaining(e -> o.set(e.getKey(), e.getValue().asText()));
    o.set("warehouse", wh);
    return CatalogFactory.createCatalog(CatalogContext.create(o));
  }

  /** Catalog listing and maintenance: {"op": "catalog", "action": list_databases|list_tables|create_database (with "properties")|database_properties|drop_table|table_exists, "database"?, "table"?}. */
  static ObjectNode opCatalog(JsonNode req) throws Exception {
    ObjectNode res = NF.objectNode();
    try (Catalog c = catalog(req)) {
      switch (text(req, "action", "")) {
        case "list_databases": {
          ArrayNode a = res.putArray("databases");
          new java.util.TreeSet<>(c.listDatabases()).forEach(a::add);
          break;
        }
        case "list_tables": {
          ArrayNode a = res.putArray("tables");
          new java.util.TreeSet<>(c.listTables(text(req, "database", null))).forEach(a::add);
          break;
        }
        case "create_database": {
          java.util.Map<String, String> props = new java.util.HashMap<>();
          if (req.has("properties")) req.get("properties").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
          c.createDatabase(text(req, "database", null), true, props);
          break;
        }
        case "database_properties": {
          ObjectNode o = res.putObject("properties");
          new java.util.TreeMap<>(Compat.databaseProperties(c, text(req, "database", null))).forEach(o::put);
          break;
        }
        case "drop_table":
          c.dropTable(Identifier.fromString(text(req, "table", null)), false);
          break;
        case "table_exists":
          try {  // (0.9's Catalog.tableExists is gone in 1.x)
            c.getTable(Identifier.fromString(text(req, "table", null)));
            res.put("exists", true);
          } catch (Catalog.TableNotExistException e) {
            res.put("exists", false);
          }
          break;
        default: throw new IllegalArgumentException("unknown catalog action: " + text(req, "action", ""));
      }
    }
    return res;
  }

  /** The table of the request, with the request's "options" (and "snapshot", "branch") applied. */
  static FileStoreTable table(JsonNode req) throws Exception {
    String name = text(req, "table", null);
    if (name == null) throw new IllegalArgumentException("missing \"table\"");
    Table t;
    try (Catalog c = catalog(req)) {
      t = c.getTable(Identifier.fromString(name));
    }
    if (!(t instanceof FileStoreTable)) throw new IllegalArgumentException("not a FileStoreTable: " + t.getClass());
    Map<String, String> opts = options(req);
    if (req.hasNonNull("snapshot")) opts.put("scan.snapshot-id", req.get("snapshot").asText());
    FileStoreTable ft = (FileStoreTable) t;
    if (req.hasNonNull("branch")) {  // "branch": that branch's schema, snapshots and tags
      ft = ft.switchToBranch(text(req, "branch", null));
      opts.put("branch", text(req, "branch", null));  // else copy(opts) reads the main branch's tags
    }
    return opts.isEmpty() ? ft : ft.copy(opts);
  }

  // ---------------------------------------------------------------- ops

  static ObjectNode opRead(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    List<DataField> fields = t.rowType().getFields();
    List<InternalRow.FieldGetter> getters = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) getters.add(InternalRow.createFieldGetter(fields.get(i).type(), i));
    ReadBuilder rb = t.newReadBuilder();
    JsonNode filter = req.get("filter");
    if (filter != null && !filter.isNull()) rb = rb.withFilter(predicate(t.rowType(), filter));
    List<Split> splits = rb.newScan().plan().splits();
    ArrayNode rows = NF.arrayNode();
    try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
      reader.forEachRemaining(row -> {
        ObjectNode o = NF.objectNode();
        for (int i = 0; i < fields.size(); i++) {
          o.set(fields.get(i).name(), toJson(fields.get(i).type(), getters.get(i).getFieldOrNull(row)));
        }
        o.put(KIND, row.getRowKind().shortString());
        rows.add(o);
      });
    }
    ObjectNode res = NF.objectNode();
    res.set("rows", rows);
    res.put("row_count", rows.size());
    res.put("splits", splits.size());
    return res;
  }

  /**
   * Java's streaming scan: {"options": {"consumer-id": .., "scan.mode": ..}, "max_plans": N}. Plans
   * until no new snapshot (or N plans), reads every plan with row kinds ("_plan" = plan index,
   * 0 = the starting plan), then checkpoints and notifies it complete (which writes the consumer
   * file when consumer-id is set). Returns {"rows", "next_snapshot"}.
   */
  static ObjectNode opStream(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    List<DataField> fields = t.rowType().getFields();
    List<InternalRow.FieldGetter> getters = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) getters.add(InternalRow.createFieldGetter(fields.get(i).type(), i));
    ReadBuilder rb = t.newReadBuilder();
    org.apache.paimon.table.source.StreamTableScan scan = rb.newStreamScan();
    org.apache.paimon.table.source.TableRead read = rb.newRead();
    int maxPlans = req.has("max_plans") ? req.get("max_plans").asInt() : 1000;
    ArrayNode rows = NF.arrayNode();
    for (int p = 0; p < maxPlans; p++) {
      org.apache.paimon.table.source.TableScan.Plan plan = scan.plan();
      // the starting plan of a from-snapshot start is "not exist" too: only later ones end the stream
      if (p > 0 && plan instanceof org.apache.paimon.table.source.SnapshotNotExistPlan) break;
      final int idx = p;
      try (RecordReader<InternalRow> reader = read.createReader(plan.splits())) {
        reader.forEachRemaining(row -> {
          ObjectNode o = NF.objectNode();
          for (int i = 0; i < fields.size(); i++) {
            o.set(fields.get(i).name(), toJson(fields.get(i).type(), getters.get(i).getFieldOrNull(row)));
          }
          o.put(KIND, row.getRowKind().shortString());
          o.put("_plan", idx);
          rows.add(o);
        });
      }
    }
    Long next = scan.checkpoint();
    scan.notifyCheckpointComplete(next);
    ObjectNode res = NF.objectNode();
    res.set("rows", rows);
    if (next == null) res.putNull("next_snapshot"); else res.put("next_snapshot", next);
    return res;
  }

  /** Java's ConsumerManager: {"action": "get"|"reset"|"min", "id", "next"}. */
  static ObjectNode opConsumer(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    org.apache.paimon.consumer.ConsumerManager cm =
        new org.apache.paimon.consumer.ConsumerManager(t.fileIO(), t.location());
    ObjectNode res = NF.objectNode();
    switch (text(req, "action", "get")) {
      case "reset":
        cm.resetConsumer(text(req, "id", null), new org.apache.paimon.consumer.Consumer(req.get("next").asLong()));
        break;
      case "min": {
        java.util.OptionalLong m = cm.minNextSnapshot();
        if (m.isPresent()) res.put("next_snapshot", m.getAsLong()); else res.putNull("next_snapshot");
        break;
      }
      default: {
        java.util.Optional<org.apache.paimon.consumer.Consumer> c = cm.consumer(text(req, "id", null));
        if (c.isPresent()) res.put("next_snapshot", c.get().nextSnapshot()); else res.putNull("next_snapshot");
      }
    }
    return res;
  }

  /** Java's own snapshot expiry: {"retain_max": N, "retain_min": M} (time retention 0); "changelog": true adds the changelog expiry. */
  static ObjectNode opExpire(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    org.apache.paimon.options.ExpireConfig cfg = org.apache.paimon.options.ExpireConfig.builder()
        .snapshotRetainMax(req.get("retain_max").asInt())
        .snapshotRetainMin(req.has("retain_min") ? req.get("retain_min").asInt() : 1)
        .snapshotTimeRetain(java.time.Duration.ZERO)
        .snapshotMaxDeletes(Integer.MAX_VALUE)
        .changelogRetainMax(req.has("changelog_retain_max") ? req.get("changelog_retain_max").asInt() : null)
        .changelogRetainMin(req.has("changelog_retain_min") ? req.get("changelog_retain_min").asInt() : null)
        .build();
    int n = t.newExpireSnapshots().config(cfg).expire();
    ObjectNode res = NF.objectNode();
    res.put("expired", n);
    // "changelog": true runs Java's changelog expiry next, as a writer with a decoupled changelog does
    if (flag(req, "changelog", false)) res.put("expired_changelogs", t.newExpireChangelog().config(cfg).expire());
    return res;
  }

  /**
   * Java's own orphan cleanup (OrphanFilesClean): {"older_than_ms": epoch millis (files modified
   * before it may go), "dry_run": bool}. Answers {"deleted": [paths it deleted or would delete]}.
   */
  static ObjectNode opOrphanClean(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    java.time.LocalDateTime cut = java.time.LocalDateTime.ofInstant(
        java.time.Instant.ofEpochMilli(req.get("older_than_ms").asLong()), java.util.TimeZone.getDefault().toZoneId());
    String olderThan = cut.format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS"));
    ObjectNode res = NF.objectNode();
    ArrayNode out = res.putArray("deleted");
    for (Path p : Compat.cleanOrphans(t, olderThan, req.get("older_than_ms").asLong(), flag(req, "dry_run", false))) {
      out.add(p.toUri().getPath());
    }
    return res;
  }

  /** Java's partition expiry, now, by the table's partition.expiration-* options: {"expired": [{k: v}, ...]}. */
  static ObjectNode opExpirePartitions(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    org.apache.paimon.operation.PartitionExpire pe = Compat.partitionExpire(t, "interop-expire");
    if (pe == null) throw new IllegalArgumentException("the table has no partition.expiration-time");
    ObjectNode res = NF.objectNode();
    ArrayNode out = res.putArray("expired");
    List<Map<String, String>> expired = pe.expire(Long.MAX_VALUE);
    if (expired != null) for (Map<String, String> m : expired) out.add(JSON.valueToTree(new TreeMap<>(m)));
    return res;
  }

  /** Every tag: {"tags": {name: snapshot id}}. */
  static ObjectNode opTags(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    ObjectNode res = NF.objectNode();
    ObjectNode out = res.putObject("tags");
    for (Map.Entry<Snapshot, List<String>> e : t.tagManager().tags().entrySet()) {
      for (String name : e.getValue()) out.put(name, e.getKey().id());
    }
    return res;
  }

  /** {"name": branch, "from_tag": tag (optional)}: Java's createBranch (empty, or from a tag). */
  static ObjectNode opCreateBranch(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    String tag = text(req, "from_tag", null);
    if (tag == null) t.createBranch(text(req, "name", null));
    else t.createBranch(text(req, "name", null), tag);
    return NF.objectNode();
  }

  /** {"name": branch}: Java's fastForward (main becomes the branch). */
  static ObjectNode opFastForward(JsonNode req) throws Exception {
    table(req).fastForward(text(req, "name", null));
    return NF.objectNode();
  }

  /** {"name": branch}: Java's deleteBranch (the branch directory only). */
  static ObjectNode opDeleteBranch(JsonNode req) throws Exception {
    table(req).deleteBranch(text(req, "name", null));
    return NF.objectNode();
  }

  /** {"tag": name, "tag_snapshot": id}: Java's createTag. */
  static ObjectNode opCreateTag(JsonNode req) throws Exception {
    table(req).createTag(text(req, "tag", null), req.get("tag_snapshot").asLong());
    return NF.objectNode();
  }

  /**
   * What $partitions shows of the latest snapshot (partitionEntries): {"partitions": [{"partition":
   * {k: Java's toString of the value}, "recordCount", "fileSizeInBytes", "fileCount",
   * "lastFileCreationTime"}]}.
   */
  static ObjectNode opPartitions(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    org.apache.paimon.utils.RowDataToObjectArrayConverter conv =
        new org.apache.paimon.utils.RowDataToObjectArrayConverter(t.schema().logicalPartitionType());
    List<String> keys = t.partitionKeys();
    ObjectNode res = NF.objectNode();
    ArrayNode arr = res.putArray("partitions");
    for (org.apache.paimon.manifest.PartitionEntry e : t.newSnapshotReader().partitionEntries()) {
      ObjectNode o = arr.addObject();
      ObjectNode part = o.putObject("partition");
      Object[] values = conv.convert(e.partition());
      for (int i = 0; i < keys.size(); i++) part.put(keys.get(i), values[i] == null ? null : values[i].toString());
      o.put("recordCount", e.recordCount());
      o.put("fileSizeInBytes", e.fileSizeInBytes());
      o.put("fileCount", e.fileCount());
      o.put("lastFileCreationTime", e.lastFileCreationTime());
    }
    return res;
  }

  /**
   * Every row of a system table as Java reads it: {"name": "db.t$snapshots" (also
   * "db.t$branch_b$files") or "sys.all_table_options"} -> {"columns": [[name, Java's type text]],
   * "rows": [{column: canonical value, "_row_kind"}]}. The catalog stays open while it reads.
   */
  /**
   * Java's ANALYZE commit (FileStoreCommit.commitStatistics) of the Statistics JSON in
   * "statistics" (Java's own layout, parsed by Statistics.fromJson): {"statistics": file name}.
   */
  static ObjectNode opAnalyze(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    org.apache.paimon.stats.Statistics stats =
        org.apache.paimon.stats.Statistics.fromJson(JSON.writeValueAsString(req.get("statistics")));
    Compat.commitStatistics(t, stats);
    ObjectNode res = NF.objectNode();
    res.put("statistics", t.snapshotManager().latestSnapshot().statistics());
    return res;
  }

  static ObjectNode opSystemTable(JsonNode req) throws Exception {
    ObjectNode res = NF.objectNode();
    try (Catalog c = catalog(req)) {
      Table t = c.getTable(Identifier.fromString(text(req, "name", null)));
      List<DataField> fields = t.rowType().getFields();
      ArrayNode cols = res.putArray("columns");
      List<InternalRow.FieldGetter> getters = new ArrayList<>();
      for (int i = 0; i < fields.size(); i++) {
        getters.add(InternalRow.createFieldGetter(fields.get(i).type(), i));
        cols.addArray().add(fields.get(i).name()).add(fields.get(i).type().toString());
      }
      ReadBuilder rb = t.newReadBuilder();
      ArrayNode rows = res.putArray("rows");
      try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan().splits())) {
        reader.forEachRemaining(row -> {
          ObjectNode o = rows.addObject();
          for (int i = 0; i < fields.size(); i++) {
            o.set(fields.get(i).name(), toJson(fields.get(i).type(), getters.get(i).getFieldOrNull(row)));
          }
          o.put(KIND, row.getRowKind().shortString());
        });
      }
    }
    return res;
  }

  /** {"path": partition dir}: Java's parse of its _SUCCESS file: {"creationTime", "modificationTime"} or {}. */
  static ObjectNode opSuccessFile(JsonNode req) throws Exception {
    Path dir = new Path(text(req, "path", null));
    org.apache.paimon.partition.file.SuccessFile f = org.apache.paimon.partition.file.SuccessFile.safelyFromPath(
        org.apache.paimon.fs.local.LocalFileIO.create(), new Path(dir, "_SUCCESS"));
    ObjectNode res = NF.objectNode();
    if (f != null) {
      res.put("creationTime", f.creationTime());
      res.put("modificationTime", f.modificationTime());
    }
    return res;
  }

  /** {"tag": name}: Java's deleteTag, which also deletes the files only that tag kept. */
  static ObjectNode opDeleteTag(JsonNode req) throws Exception {
    table(req).deleteTag(text(req, "tag", null));
    return NF.objectNode();
  }

  /** {"to_snapshot": id} or {"to_tag": name}: Java's rollbackTo. */
  static ObjectNode opRollback(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    if (req.has("to_tag")) {
      t.rollbackTo(text(req, "to_tag", null));
    } else {
      t.rollbackTo(req.get("to_snapshot").asLong());
    }
    return NF.objectNode();
  }

  /**
   * Java's own schema change through SchemaManager.commitChanges: {"changes": [{"add_column":
   * {"name", "type"}} | {"drop_column": name} | {"rename_column": [old, new]} |
   * {"update_column_type": {"name", "type"}} | {"set_option": {"key", "value"}}]}.
   */
  static ObjectNode opAlter(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    List<org.apache.paimon.schema.SchemaChange> changes = new ArrayList<>();
    for (JsonNode c : req.get("changes")) {
      if (c.has("add_column")) {
        changes.add(org.apache.paimon.schema.SchemaChange.addColumn(
            c.get("add_column").get("name").asText(), TypeParser.parse(c.get("add_column").get("type").asText())));
      } else if (c.has("drop_column")) {
        changes.add(org.apache.paimon.schema.SchemaChange.dropColumn(c.get("drop_column").asText()));
      } else if (c.has("rename_column")) {
        changes.add(org.apache.paimon.schema.SchemaChange.renameColumn(
            c.get("rename_column").get(0).asText(), c.get("rename_column").get(1).asText()));
      } else if (c.has("update_column_type")) {
        changes.add(org.apache.paimon.schema.SchemaChange.updateColumnType(
            c.get("update_column_type").get("name").asText(),
            TypeParser.parse(c.get("update_column_type").get("type").asText())));
      } else if (c.has("set_option")) {
        changes.add(org.apache.paimon.schema.SchemaChange.setOption(
            c.get("set_option").get("key").asText(), c.get("set_option").get("value").asText()));
      } else {
        throw new IllegalArgumentException("unknown schema change: " + c);
      }
    }
    org.apache.paimon.schema.TableSchema s =
        new org.apache.paimon.schema.SchemaManager(t.fileIO(), t.location()).commitChanges(changes);
    ObjectNode res = NF.objectNode();
    res.put("schema_id", s.id());
    return res;
  }

  /**
   * Incremental read of (from, to] through Java's audit-log system table (rows carry their row
   * kind): {"from": A, "to": B, "mode": "changelog" | "delta" | "auto"}. Read one snapshot at a
   * time for exact results (Java 0.9 merges per key over a longer range).
   */
  static ObjectNode opAudit(JsonNode req) throws Exception {
    FileStoreTable base = table(req);
    java.util.Map<String, String> o = new java.util.HashMap<>();
    o.put("incremental-between", req.get("from").asLong() + "," + req.get("to").asLong());
    o.put("incremental-between-scan-mode", text(req, "mode", "changelog"));
    org.apache.paimon.table.Table audit = new org.apache.paimon.table.system.AuditLogTable(base).copy(o);
    List<DataField> fields = base.rowType().getFields();
    List<InternalRow.FieldGetter> getters = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) getters.add(InternalRow.createFieldGetter(fields.get(i).type(), i + 1));
    ReadBuilder rb = audit.newReadBuilder();
    List<Split> splits = rb.newScan().plan().splits();
    ArrayNode rows = NF.arrayNode();
    try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
      reader.forEachRemaining(row -> {
        ObjectNode n = NF.objectNode();
        for (int i = 0; i < fields.size(); i++) {
          n.set(fields.get(i).name(), toJson(fields.get(i).type(), getters.get(i).getFieldOrNull(row)));
        }
        n.put(KIND, row.getString(0).toString());
        rows.add(n);
      });
    }
    ObjectNode res = NF.objectNode();
    res.set("rows", rows);
    return res;
  }

  /**
   * {"field": f, "op": "=" | "<" | "<=" | ">" | ">=" | "is_null", "value": canonical}: pushed down
   * like an engine does (file/row-group skipping on stats); rows of files that are read are NOT
   * filtered, so a result may hold rows that do not match.
   */
  static Predicate predicate(RowType rt, JsonNode f) {
    PredicateBuilder pb = new PredicateBuilder(rt);
    int idx = rt.getFieldNames().indexOf(f.get("field").asText());
    if (idx < 0) throw new IllegalArgumentException("unknown filter field: " + f.get("field"));
    Object v = fromJson(rt.getTypeAt(idx), f.get("value"));
    switch (text(f, "op", "=")) {
      case "=": return pb.equal(idx, v);
      case "<": return pb.lessThan(idx, v);
      case "<=": return pb.lessOrEqual(idx, v);
      case ">": return pb.greaterThan(idx, v);
      case ">=": return pb.greaterOrEqual(idx, v);
      case "is_null": return pb.isNull(idx);
      default: throw new IllegalArgumentException("unknown filter op: " + f.get("op"));
    }
  }

  static ObjectNode opCreateTable(JsonNode req) throws Exception {
    String name = text(req, "table", null);
    if (name == null) throw new IllegalArgumentException("missing \"table\"");
    Identifier id = Identifier.fromString(name);
    Schema.Builder b = Schema.newBuilder();
    JsonNode cols = req.get("schema");
    if (cols == null || !cols.isArray()) throw new IllegalArgumentException("\"schema\" must be a list of {name, type}");
    for (JsonNode col : cols) b.column(col.get("name").asText(), TypeParser.parse(col.get("type").asText()));
    List<String> pks = strings(req, "primary_keys");
    List<String> parts = strings(req, "partition_keys");
    if (!pks.isEmpty()) b.primaryKey(pks);
    if (!parts.isEmpty()) b.partitionKeys(parts);
    b.options(options(req));
    try (Catalog c = catalog(req)) {
      c.createDatabase(id.getDatabaseName(), true);
      if (flag(req, "drop_if_exists", false)) c.dropTable(id, true);
      c.createTable(id, b.build(), flag(req, "ignore_if_exists", false));
      FileStoreTable t = (FileStoreTable) c.getTable(id);
      ObjectNode res = NF.objectNode();
      res.put("schema_id", t.schema().id());
      res.put("path", t.location().toString());
      return res;
    }
  }

  static IOManager ioManager;

  /** One IOManager per JVM, on java.io.tmpdir: Java needs it for lookups (first-row etc.). */
  static IOManager ioManager() {
    if (ioManager == null) ioManager = IOManager.create(System.getProperty("java.io.tmpdir"));
    return ioManager;
  }

  static ObjectNode opWrite(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    RowType rt = t.rowType();
    List<GenericRow> rows = new ArrayList<>();
    JsonNode in = req.get("rows");
    if (in == null || !in.isArray()) throw new IllegalArgumentException("\"rows\" must be a list");
    for (JsonNode n : in) rows.add(rowFromJson(rt, n));
    BatchWriteBuilder wb = t.newBatchWriteBuilder();
    if (flag(req, "overwrite", false)) wb = wb.withOverwrite();
    try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
      w.withIOManager(ioManager()); // lookup-based merges (first-row, changelog lookup) spill to disk
      if (t.bucketMode() == BucketMode.HASH_DYNAMIC) {
        // dynamic bucket: the bucket of each row comes from Java's hash-index assigner
        org.apache.paimon.table.sink.DynamicBucketRowKeyExtractor kx =
            new org.apache.paimon.table.sink.DynamicBucketRowKeyExtractor(t.schema());
        org.apache.paimon.index.HashBucketAssigner assigner = Compat.hashBucketAssigner(t);
        for (GenericRow r : rows) {
          kx.setRecord(r);
          w.write(r, assigner.assign(kx.partition(), kx.trimmedPrimaryKey().hashCode()));
        }
      } else if (Compat.isCrossPartition(t)) {
        writeCrossPartition(t, w, rows);
      } else {
        for (GenericRow r : rows) w.write(r);
      }
      c.commit(w.prepareCommit());
    }
    ObjectNode res = NF.objectNode();
    res.put("written", rows.size());
    res.put("snapshot", t.snapshotManager().latestSnapshotId());
    return res;
  }

  /**
   * Cross-partition upsert: Java's GlobalIndexAssigner keeps its key index in RocksDB, which the
   * bridge jar lacks, so its per-record logic is replayed over a HashMap with Java's own pieces:
   * IndexBootstrap (the key, partition and bucket of the live rows), the crosspartition
   * BucketAssigner and the merge engine's ExistingProcessor. A key found twice by the bootstrap
   * fails as Java's bulk load of the index does.
   */
  static void writeCrossPartition(FileStoreTable t, BatchTableWrite w, List<GenericRow> rows) throws Exception {
    org.apache.paimon.crosspartition.KeyPartPartitionKeyExtractor bx =
        new org.apache.paimon.crosspartition.KeyPartPartitionKeyExtractor(t.schema());
    org.apache.paimon.table.sink.RowPartitionKeyExtractor rx =
        new org.apache.paimon.table.sink.RowPartitionKeyExtractor(t.schema());
    org.apache.paimon.crosspartition.BucketAssigner ba = new org.apache.paimon.crosspartition.BucketAssigner();
    java.util.Map<BinaryRow, BinaryRow> partOf = new java.util.HashMap<>();
    java.util.Map<BinaryRow, Integer> bucketOf = new java.util.HashMap<>();
    int target = (int) t.coreOptions().dynamicBucketTargetRowNum();
    try (RecordReader<InternalRow> rr = new org.apache.paimon.crosspartition.IndexBootstrap(t).bootstrap(1, 0)) {
      rr.forEachRemaining(row -> {
        BinaryRow key = bx.trimmedPrimaryKey(row).copy();
        BinaryRow part = bx.partition(row).copy();
        int bucket = row.getInt(row.getFieldCount() - 1);
        if (partOf.containsKey(key)) throw new IllegalStateException("bootstrap: duplicate key in the table");
        ba.bootstrapBucket(part, bucket);
        partOf.put(key, part);
        bucketOf.put(key, bucket);
      });
    }
    java.util.function.BiConsumer<InternalRow, Integer> collect = (row, bucket) -> {
      try { w.write(row, bucket); } catch (Exception e) { throw new RuntimeException(e); }
    };
    org.apache.paimon.crosspartition.ExistingProcessor proc =
        org.apache.paimon.crosspartition.ExistingProcessor.create(
            t.coreOptions().mergeEngine(),
            new org.apache.paimon.utils.ProjectToRowFunction(t.rowType(), t.partitionKeys()),
            ba, collect);
    for (GenericRow r : rows) {
      BinaryRow part = rx.partition(r).copy();
      BinaryRow key = rx.trimmedPrimaryKey(r).copy();
      BinaryRow prev = partOf.get(key);
      boolean isNew = prev == null;
      if (prev != null && prev.equals(part)) {
        collect.accept(r, bucketOf.get(key));
      } else if (prev != null) {
        isNew = proc.processExists(r, prev, bucketOf.get(key));
      }
      if (isNew) {
        int bucket = ba.assignBucket(part, b -> true, target);
        partOf.put(key, part);
        bucketOf.put(key, bucket);
        collect.accept(r, bucket);
      }
    }
  }

  static ObjectNode opCompact(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    boolean full = flag(req, "full", true);
    Long before = t.snapshotManager().latestSnapshotId();
    // (partition, bucket) -> files, from the current scan
    Map<BinaryRow, Map<Integer, List<DataFileMeta>>> live = new LinkedHashMap<>();
    for (Split s : t.newReadBuilder().newScan().plan().splits()) {
      DataSplit ds = (DataSplit) s;
      live.computeIfAbsent(ds.partition().copy(), k -> new TreeMap<>())
          .computeIfAbsent(ds.bucket(), k -> new ArrayList<>()).addAll(ds.dataFiles());
    }
    int units = 0;
    if (t.bucketMode() == BucketMode.BUCKET_UNAWARE) {
      // bucket = -1 append table: rewrite all files of every partition holding more than one
      Map<BinaryRow, List<DataFileMeta>> byPart = new LinkedHashMap<>();
      for (Map.Entry<BinaryRow, Map<Integer, List<DataFileMeta>>> e : live.entrySet()) {
        List<DataFileMeta> files = new ArrayList<>();
        e.getValue().values().forEach(files::addAll);
        byPart.put(e.getKey(), files);
      }
      List<CommitMessage> msgs = Compat.compactAppendPartitions(t, byPart);
      units = msgs.size();
      if (!msgs.isEmpty()) {
        try (BatchTableCommit c = t.newBatchWriteBuilder().newCommit()) {
          c.commit(msgs);
        }
      }
    } else {
      BatchWriteBuilder wb = t.newBatchWriteBuilder();
      try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
        w.withIOManager(ioManager());
        for (Map.Entry<BinaryRow, Map<Integer, List<DataFileMeta>>> e : live.entrySet()) {
          for (int bucket : e.getValue().keySet()) {
            w.compact(e.getKey(), bucket, full);
            units++;
          }
        }
        c.commit(w.prepareCommit());
      }
    }
    ObjectNode res = NF.objectNode();
    res.put("before", before);
    res.put("after", t.snapshotManager().latestSnapshotId());
    res.put("compacted_units", units);
    return res;
  }

  static ObjectNode opSnapshots(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    List<Snapshot> snaps = new ArrayList<>();
    Iterator<Snapshot> it = t.snapshotManager().snapshots();
    it.forEachRemaining(snaps::add);
    snaps.sort((a, b) -> Long.compare(a.id(), b.id()));
    ArrayNode arr = NF.arrayNode();
    for (Snapshot s : snaps) {
      ObjectNode o = arr.addObject();
      o.put("id", s.id());
      o.put("commitKind", s.commitKind().name());
      o.put("totalRecordCount", s.totalRecordCount());
      o.put("deltaRecordCount", s.deltaRecordCount());
      o.put("changelogRecordCount", s.changelogRecordCount());
      o.put("schemaId", s.schemaId());
      o.put("version", s.version());
      o.put("commitUser", s.commitUser());
      o.put("commitIdentifier", s.commitIdentifier());
      o.put("timeMillis", s.timeMillis());
      o.put("baseManifestList", s.baseManifestList());
      o.put("deltaManifestList", s.deltaManifestList());
      o.put("changelogManifestList", s.changelogManifestList());
      o.put("indexManifest", s.indexManifest());
      o.put("watermark", s.watermark());
    }
    ObjectNode res = NF.objectNode();
    res.set("snapshots", arr);
    res.put("latest", t.snapshotManager().latestSnapshotId());
    res.put("earliest", t.snapshotManager().earliestSnapshotId());
    return res;
  }

  static ObjectNode opFiles(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    RowType pt = t.schema().logicalPartitionType();
    ArrayNode arr = NF.arrayNode();
    for (Split s : t.newReadBuilder().newScan().plan().splits()) {
      DataSplit ds = (DataSplit) s;
      ObjectNode pv = NF.objectNode();
      List<String> parts = new ArrayList<>();
      for (int i = 0; i < pt.getFieldCount(); i++) {
        DataField f = pt.getFields().get(i);
        JsonNode v = toJson(f.type(), InternalRow.createFieldGetter(f.type(), i).getFieldOrNull(ds.partition()));
        pv.set(f.name(), v);
        parts.add(f.name() + "=" + (v.isTextual() ? v.asText() : v.toString()));
      }
      for (DataFileMeta f : ds.dataFiles()) {
        ObjectNode o = arr.addObject();
        o.put("snapshot", ds.snapshotId());
        o.put("partition", String.join("/", parts));
        o.set("partitionValues", pv);
        o.put("bucket", ds.bucket());
        o.put("level", f.level());
        o.put("fileName", f.fileName());
        o.put("rowCount", f.rowCount());
        o.put("addRowCount", Compat.addRowCount(f));
        o.put("deleteRowCount", f.deleteRowCount().orElse(null));
        o.put("minSeq", f.minSequenceNumber());
        o.put("maxSeq", f.maxSequenceNumber());
        o.put("schemaId", f.schemaId());
        o.put("fileSize", f.fileSize());
      }
    }
    ObjectNode res = NF.objectNode();
    res.set("files", arr);
    return res;
  }

  static ObjectNode opSchema(JsonNode req) throws Exception {
    FileStoreTable t = table(req);
    ObjectNode res = NF.objectNode();
    res.set("schema", JSON.readTree(t.schema().toString()));
    return res;
  }

  /** Java's UniversalCompaction.pick for runs given as [level, size] (newest first, one file each). */
  static ObjectNode opUniversalPick(JsonNode req) {
    List<org.apache.paimon.mergetree.LevelSortedRun> runs = new ArrayList<>();
    int n = 0;
    for (JsonNode r : req.get("runs")) {
      org.apache.paimon.io.DataFileMeta f = Compat.pickFile("f" + n, r.get(1).asLong(), n);
      runs.add(new org.apache.paimon.mergetree.LevelSortedRun(
          r.get(0).asInt(), org.apache.paimon.mergetree.SortedRun.fromSingle(f)));
      n++;
    }
    org.apache.paimon.mergetree.compact.UniversalCompaction uc =
        Compat.universal(req.get("max_size_amp").asInt(), req.get("size_ratio").asInt(), req.get("trigger").asInt());
    java.util.Optional<org.apache.paimon.compact.CompactUnit> unit = uc.pick(req.get("num_levels").asInt(), runs);
    ObjectNode out = NF.objectNode();
    if (unit.isPresent()) {
      out.put("output_level", unit.get().outputLevel());
      out.put("run_count", unit.get().files().size());
    } else {
      out.putNull("output_level");
    }
    return out;
  }

  static ObjectNode opBucketOf(JsonNode req) {
    List<DataField> fields = new ArrayList<>();
    int i = 0;
    for (String ty : strings(req, "types")) {
      fields.add(new DataField(i, "f" + i, TypeParser.parse(ty)));
      i++;
    }
    RowType rt = new RowType(fields);
    int numBuckets = req.get("num_buckets").asInt();
    // The bucket key is built like the write path builds it (FixedBucketRowKeyExtractor: a
    // generated Projection), NOT with InternalRowSerializer.toBinaryRow: the two differ for NULL
    // non-compact DECIMAL(p>18)/TIMESTAMP(p>3) fields (the projection reserves their var bytes).
    int[] mapping = new int[rt.getFieldCount()];
    for (int k = 0; k < mapping.length; k++) mapping[k] = k;
    Projection proj = CodeGenUtils.newProjection(rt, mapping);
    InternalRowSerializer ser = new InternalRowSerializer(rt);
    boolean viaSerializer = "serializer".equals(text(req, "via", "projection"));
    ArrayNode buckets = NF.arrayNode();
    ArrayNode hashes = NF.arrayNode();
    for (JsonNode values : req.get("rows")) {
      GenericRow g = new GenericRow(rt.getFieldCount());
      for (int k = 0; k < rt.getFieldCount(); k++) g.setField(k, fromJson(fields.get(k).type(), values.get(k)));
      BinaryRow key = (viaSerializer ? ser.toBinaryRow(g) : proj.apply(g)).copy();
      hashes.add(Compat.bucketKeyHash(key));
      buckets.add(Compat.bucket(key, numBuckets));
    }
    ObjectNode res = NF.objectNode();
    res.set("buckets", buckets);
    res.set("hashes", hashes);
    return res;
  }

  // ---------------------------------------------------------------- canonical values

  static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
    return sb.toString();
  }

  static byte[] unhex(String s) {
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    return b;
  }

  static JsonNode floating(double d) {
    if (Double.isNaN(d)) return NF.textNode("NaN");
    if (Double.isInfinite(d)) return NF.textNode(d > 0 ? "Infinity" : "-Infinity");
    return NF.numberNode(d);
  }

  static String timestampText(Timestamp ts, int precision) {
    LocalDateTime t = ts.toLocalDateTime();
    String s = String.format("%04d-%02d-%02dT%02d:%02d:%02d", t.getYear(), t.getMonthValue(), t.getDayOfMonth(),
        t.getHour(), t.getMinute(), t.getSecond());
    if (precision > 0) s += "." + String.format("%09d", t.getNano()).substring(0, precision);
    return s;
  }

  static String mapKeyText(JsonNode k) {
    return k.isTextual() ? k.asText() : k.toString();
  }

  static JsonNode toJson(DataType type, Object v) {
    if (v == null) return NF.nullNode();
    switch (type.getTypeRoot()) {
      case BOOLEAN: return NF.booleanNode((Boolean) v);
      case TINYINT: return NF.numberNode((Byte) v);
      case SMALLINT: return NF.numberNode((Short) v);
      case INTEGER: return NF.numberNode((Integer) v);
      case BIGINT: return NF.numberNode((Long) v);
      case FLOAT: return floating((double) (Float) v); // widened exactly to double
      case DOUBLE: return floating((Double) v);
      case DECIMAL:
        return NF.textNode(((Decimal) v).toBigDecimal().setScale(DataTypeChecks.getScale(type)).toPlainString());
      case CHAR: case VARCHAR: return NF.textNode(v.toString());
      case BINARY: case VARBINARY: return NF.textNode(hex((byte[]) v));
      case DATE: return NF.textNode(LocalDate.ofEpochDay((Integer) v).toString());
      case TIME_WITHOUT_TIME_ZONE: {
        LocalTime t = LocalTime.ofNanoOfDay(((Integer) v) * 1_000_000L);
        return NF.textNode(String.format("%02d:%02d:%02d.%03d", t.getHour(), t.getMinute(), t.getSecond(),
            t.getNano() / 1_000_000));
      }
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return NF.textNode(timestampText((Timestamp) v, DataTypeChecks.getPrecision(type)));
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return NF.textNode(timestampText((Timestamp) v, DataTypeChecks.getPrecision(type)) + "Z");
      case ARRAY: {
        DataType et = ((ArrayType) type).getElementType();
        InternalArray a = (InternalArray) v;
        InternalArray.ElementGetter g = InternalArray.createElementGetter(et);
        ArrayNode out = NF.arrayNode();
        for (int i = 0; i < a.size(); i++) out.add(toJson(et, g.getElementOrNull(a, i)));
        return out;
      }
      case MAP: case MULTISET: {
        DataType kt = type instanceof MapType ? ((MapType) type).getKeyType() : ((MultisetType) type).getElementType();
        DataType vt = type instanceof MapType ? ((MapType) type).getValueType() : DataTypes.INT();
        InternalMap m = (InternalMap) v;
        InternalArray.ElementGetter kg = InternalArray.createElementGetter(kt);
        InternalArray.ElementGetter vg = InternalArray.createElementGetter(vt);
        ObjectNode out = NF.objectNode();
        for (int i = 0; i < m.size(); i++) {
          out.set(mapKeyText(toJson(kt, kg.getElementOrNull(m.keyArray(), i))),
              toJson(vt, vg.getElementOrNull(m.valueArray(), i)));
        }
        return out;
      }
      case ROW: {
        RowType rt = (RowType) type;
        InternalRow r = (InternalRow) v;
        ObjectNode out = NF.objectNode();
        for (int i = 0; i < rt.getFieldCount(); i++) {
          DataField f = rt.getFields().get(i);
          out.set(f.name(), toJson(f.type(), InternalRow.createFieldGetter(f.type(), i).getFieldOrNull(r)));
        }
        return out;
      }
      default:
        if (type.getTypeRoot().name().equals("BLOB")) return NF.textNode(hex(Compat.blobBytes(v)));
        throw new UnsupportedOperationException("no canonical encoding for " + type);
    }
  }

  static GenericRow rowFromJson(RowType rt, JsonNode n) {
    RowKind kind = n.hasNonNull(KIND) ? RowKind.fromShortString(n.get(KIND).asText()) : RowKind.INSERT;
    GenericRow r = new GenericRow(kind, rt.getFieldCount());
    for (int i = 0; i < rt.getFieldCount(); i++) {
      DataField f = rt.getFields().get(i);
      r.setField(i, fromJson(f.type(), n.get(f.name())));
    }
    return r;
  }

  static String str(JsonNode n) {
    return n.isTextual() ? n.asText() : n.toString();
  }

  static Object fromJson(DataType type, JsonNode n) {
    if (n == null || n.isNull() || n.isMissingNode()) return null;
    switch (type.getTypeRoot()) {
      case BOOLEAN: return n.isBoolean() ? n.asBoolean() : Boolean.parseBoolean(n.asText());
      case TINYINT: return Byte.parseByte(str(n));
      case SMALLINT: return Short.parseShort(str(n));
      case INTEGER: return Integer.parseInt(str(n));
      case BIGINT: return Long.parseLong(str(n));
      case FLOAT: return n.isNumber() ? n.floatValue() : Float.parseFloat(n.asText());
      case DOUBLE: return n.isNumber() ? n.doubleValue() : Double.parseDouble(n.asText());
      case DECIMAL:
        return Decimal.fromBigDecimal(new BigDecimal(str(n)), DataTypeChecks.getPrecision(type),
            DataTypeChecks.getScale(type));
      case CHAR: case VARCHAR: return BinaryString.fromString(n.asText());
      case BINARY: case VARBINARY: return unhex(n.asText());
      case DATE: return (int) LocalDate.parse(n.asText()).toEpochDay();
      case TIME_WITHOUT_TIME_ZONE: return (int) (LocalTime.parse(n.asText()).toNanoOfDay() / 1_000_000L);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return Timestamp.fromLocalDateTime(LocalDateTime.parse(n.asText().replace(' ', 'T')));
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
        String s = n.asText().replace(' ', 'T');
        if (s.endsWith("Z")) s = s.substring(0, s.length() - 1);
        return Timestamp.fromInstant(LocalDateTime.parse(s).toInstant(ZoneOffset.UTC));
      }
      case ARRAY: {
        DataType et = ((ArrayType) type).getElementType();
        Object[] a = new Object[n.size()];
        for (int i = 0; i < a.length; i++) a[i] = fromJson(et, n.get(i));
        return new GenericArray(a);
      }
      case MAP: {
        MapType mt = (MapType) type;
        Map<Object, Object> m = new LinkedHashMap<>();
        n.fields().forEachRemaining(e ->
            m.put(fromJson(mt.getKeyType(), NF.textNode(e.getKey())), fromJson(mt.getValueType(), e.getValue())));
        return new GenericMap(m);
      }
      case MULTISET: {  // an object from element (keyed by its canonical text) to count
        DataType et = ((MultisetType) type).getElementType();
        Map<Object, Object> m = new LinkedHashMap<>();
        n.fields().forEachRemaining(e ->
            m.put(fromJson(et, NF.textNode(e.getKey())), fromJson(DataTypes.INT(), e.getValue())));
        return new GenericMap(m);
      }
      case ROW: {
        RowType rt = (RowType) type;
        GenericRow r = new GenericRow(rt.getFieldCount());
        for (int i = 0; i < rt.getFieldCount(); i++) {
          r.setField(i, fromJson(rt.getFields().get(i).type(),
              n.isArray() ? n.get(i) : n.get(rt.getFields().get(i).name())));
        }
        return r;
      }
      default:
        if (type.getTypeRoot().name().equals("BLOB")) return Compat.blob(unhex(n.asText()));
        throw new UnsupportedOperationException("cannot build a value of " + type);
    }
  }

  // ---------------------------------------------------------------- type strings

  /**
   * Parses Paimon type strings such as "INT NOT NULL", "DECIMAL(10, 2)", "TIMESTAMP_LTZ(6)",
   * "ARRAY<INT>", "MAP<STRING, INT>", "ROW<a INT, b STRING>". Atomic types go to Paimon's own
   * DataTypeJsonParser; nesting is handled here.
   */
  static final class TypeParser {
    private final String s;
    private int pos;

    private TypeParser(String s) {
      this.s = s;
    }

    static DataType parse(String text) {
      TypeParser p = new TypeParser(text);
      DataType t = p.type();
      p.ws();
      if (p.pos != p.s.length()) throw new IllegalArgumentException("trailing text in type: " + text);
      return t;
    }

    private void ws() {
      while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) pos++;
    }

    private void expect(char c) {
      ws();
      if (pos >= s.length() || s.charAt(pos) != c) {
        throw new IllegalArgumentException("expected '" + c + "' at " + pos + " in type: " + s);
      }
      pos++;
    }

    private String word() {
      ws();
      if (pos < s.length() && s.charAt(pos) == '`') {
        int end = s.indexOf('`', pos + 1);
        String w = s.substring(pos + 1, end);
        pos = end + 1;
        return w;
      }
      int start = pos;
      while (pos < s.length() && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_')) pos++;
      if (start == pos) throw new IllegalArgumentException("expected a name at " + pos + " in type: " + s);
      return s.substring(start, pos);
    }

    private boolean keyword(String kw) {
      ws();
      if (s.regionMatches(true, pos, kw, 0, kw.length())
          && (pos + kw.length() == s.length() || !Character.isLetterOrDigit(s.charAt(pos + kw.length())))) {
        pos += kw.length();
        return true;
      }
      return false;
    }

    private DataType nullability(DataType t) {
      int save = pos;
      if (keyword("NOT")) {
        if (keyword("NULL")) return t.copy(false);
        pos = save;
      } else if (keyword("NULL")) {
        return t.copy(true);
      }
      return t;
    }

    private DataType type() {
      ws();
      int start = pos;
      String w = word().toUpperCase();
      switch (w) {
        case "ARRAY": {
          expect('<');
          DataType e = type();
          expect('>');
          return nullability(DataTypes.ARRAY(e));
        }
        case "MULTISET": {
          expect('<');
          DataType e = type();
          expect('>');
          return nullability(DataTypes.MULTISET(e));
        }
        case "MAP": {
          expect('<');
          DataType k = type();
          expect(',');
          DataType v = type();
          expect('>');
          return nullability(DataTypes.MAP(k, v));
        }
        case "ROW": {
          expect('<');
          List<DataField> fields = new ArrayList<>();
          while (true) {
            String name = word();
            DataType ft = type();
            ws();
            String desc = null;
            if (pos < s.length() && s.charAt(pos) == '\'') {
              int end = s.indexOf('\'', pos + 1);
              desc = s.substring(pos + 1, end);
              pos = end + 1;
            }
            fields.add(new DataField(fields.size(), name, ft, desc));
            ws();
            if (pos < s.length() && s.charAt(pos) == ',') {
              pos++;
              continue;
            }
            expect('>');
            break;
          }
          return nullability(new RowType(fields));
        }
        default: {
          // atomic: everything up to the next ',' or '>' outside parentheses
          int depth = 0;
          while (pos < s.length()) {
            char c = s.charAt(pos);
            if (c == '(') depth++;
            else if (c == ')') depth--;
            else if (depth == 0 && (c == ',' || c == '>' || c == '\'')) break;
            pos++;
          }
          String atomic = s.substring(start, pos).trim();
          atomic = atomic.replaceAll("(?i)^TIMESTAMP_LTZ\\s*(\\(\\s*\\d+\\s*\\))", "TIMESTAMP$1 WITH LOCAL TIME ZONE");
          atomic = atomic.replaceAll("(?i)^TIMESTAMP_LTZ\\b", "TIMESTAMP(6) WITH LOCAL TIME ZONE");
          return DataTypeJsonParser.parseAtomicTypeSQLString(atomic);
        }
      }
    }
  }
}
