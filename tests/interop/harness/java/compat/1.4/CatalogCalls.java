import org.apache.paimon.PagedList;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Database;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.catalog.PropertyChange;
import org.apache.paimon.catalog.TableQueryAuthResult;
import org.apache.paimon.consumer.ConsumerInfo;
import org.apache.paimon.function.Function;
import org.apache.paimon.function.FunctionChange;
import org.apache.paimon.function.FunctionDefinition;
import org.apache.paimon.function.FunctionImpl;
import org.apache.paimon.partition.Partition;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.rest.responses.GetTagResponse;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.table.Instant;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.TableSnapshot;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.paimon.view.View;
import org.apache.paimon.view.ViewChange;
import org.apache.paimon.view.ViewImpl;
import org.apache.paimon.view.ViewSchema;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The op "catalog_calls" (Java 1.4.x and 2.0.x): a script of {@link Catalog} method calls run
 * in order on one catalog (e.g. a RESTCatalog), each answering its own slot: the method's result
 * as JSON, or {"error": simple class name, "message"} when it throws, so a test checks refusals
 * as closely as answers. Calls are named after the Catalog methods; a method the running release
 * lacks is reached by reflection and answers {"error": "NoSuchMethodException"}. Changes of
 * alterTable/alterView/alterFunction and function definitions are given in the REST wire form and
 * parsed by Paimon's own JSON classes.
 */
final class CatalogCalls {
  private CatalogCalls() {}

  static ObjectNode run(JsonNode req) throws Exception {
    ObjectNode res = InteropDriver.NF.objectNode();
    ArrayNode out = res.putArray("results");
    try (Catalog c = InteropDriver.catalog(req)) {
      for (JsonNode call : req.get("calls")) {
        ObjectNode slot = InteropDriver.NF.objectNode();
        try {
          call(c, call, slot);
        } catch (java.lang.reflect.InvocationTargetException e) {
          error(slot, e.getCause());
        } catch (Throwable t) {
          error(slot, t);
        }
        out.add(slot);
      }
    }
    return res;
  }

  private static void error(ObjectNode slot, Throwable t) {
    String call = slot.path("call").asText();
    slot.removeAll();
    slot.put("call", call);
    slot.put("error", t.getClass().getSimpleName());
    slot.put("message", String.valueOf(t.getMessage()));
  }

  private static String s(JsonNode n, String key) {
    return InteropDriver.text(n, key, null);
  }

  private static Integer max(JsonNode n) {
    return n.hasNonNull("max") ? n.get("max").asInt() : null;
  }

  private static Identifier id(JsonNode n, String key) {
    return Identifier.fromString(s(n, key));
  }

  private static <T> T wire(JsonNode n, Class<T> cls) throws Exception {
    return JsonSerdeUtil.fromJson(InteropDriver.JSON.writeValueAsString(n), cls);
  }

  private static <T> List<T> wires(JsonNode n, Class<T> cls) throws Exception {
    List<T> out = new ArrayList<>();
    for (JsonNode x : n) out.add(wire(x, cls));
    return out;
  }

  private static List<Map<String, String>> specs(JsonNode n) {
    List<Map<String, String>> out = new ArrayList<>();
    for (JsonNode spec : n.get("specs")) {
      Map<String, String> m = new LinkedHashMap<>();
      spec.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
      out.add(m);
    }
    return out;
  }

  private static List<DataField> fields(JsonNode n) {
    List<DataField> out = new ArrayList<>();
    int i = 0;
    for (JsonNode f : n) {
      String doc = f.hasNonNull("description") ? f.get("description").asText() : null;
      out.add(new DataField(i++, f.get("name").asText(), InteropDriver.TypeParser.parse(f.get("type").asText()), doc));
    }
    return out;
  }

  private static ArrayNode fieldsJson(List<DataField> fields) {
    ArrayNode a = InteropDriver.NF.arrayNode();
    for (DataField f : fields) a.addObject().put("name", f.name()).put("type", f.type().toString());
    return a;
  }

  private static Map<String, String> strMap(JsonNode n) {
    Map<String, String> m = new LinkedHashMap<>();
    if (n != null && !n.isNull()) n.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
    return m;
  }

  private static ObjectNode mapJson(Map<String, String> m) {
    ObjectNode o = InteropDriver.NF.objectNode();
    new TreeMap<>(m).forEach(o::put);
    return o;
  }

  private static <T> void paged(ObjectNode slot, PagedList<T> page, java.util.function.Function<T, String> name) {
    ArrayNode a = slot.putArray("items");
    for (T x : page.getElements()) a.add(name.apply(x));
    slot.put("next", page.getNextPageToken());
  }

  private static void table(ObjectNode o, Table t) {
    o.put("name", t.name()).put("full_name", t.fullName()).put("uuid", t.uuid());
    o.set("fields", fieldsJson(t.rowType().getFields()));
    o.set("partition_keys", InteropDriver.JSON.valueToTree(t.partitionKeys()));
    o.set("primary_keys", InteropDriver.JSON.valueToTree(t.primaryKeys()));
    o.set("options", mapJson(t.options()));
    o.put("comment", t.comment().orElse(null));
  }

  private static void view(ObjectNode o, View v) throws Exception {
    o.put("name", v.name()).put("full_name", v.fullName()).put("query", v.query());
    o.set("fields", fieldsJson(v.rowType().getFields()));
    o.set("dialects", mapJson(v.dialects()));
    o.put("comment", v.comment().orElse(null));
    o.set("options", mapJson(v.options()));
    // the view as Java's JdbcCatalog stores it (ViewSchema JSON: field ids, nested types, descriptions)
    ViewSchema schema = new ViewSchema(v.rowType().getFields(), v.query(), v.dialects(), v.comment().orElse(null), v.options());
    o.set("schema", InteropDriver.JSON.readTree(JsonSerdeUtil.toJson(schema)));
  }

  private static void function(ObjectNode o, Function f) throws Exception {
    o.put("name", f.name()).put("full_name", f.fullName()).put("deterministic", f.isDeterministic());
    o.set("input", fieldsJson(f.inputParams().orElse(new ArrayList<>())));
    o.set("returns", fieldsJson(f.returnParams().orElse(new ArrayList<>())));
    ObjectNode defs = o.putObject("definitions");
    for (Map.Entry<String, FunctionDefinition> e : new TreeMap<>(f.definitions()).entrySet()) {
      defs.set(e.getKey(), InteropDriver.JSON.readTree(JsonSerdeUtil.toJson(e.getValue())));
    }
    o.put("comment", f.comment());
    o.set("options", mapJson(f.options()));
  }

  private static void partitions(ObjectNode slot, List<Partition> parts) {
    ArrayNode a = slot.putArray("items");
    for (Partition p : parts) {
      ObjectNode o = a.addObject();
      o.set("spec", mapJson(p.spec()));
      o.put("recordCount", p.recordCount()).put("fileCount", p.fileCount()).put("done", p.done());
    }
  }

  private static void snapshot(ObjectNode o, Snapshot s) {
    o.put("id", s.id()).put("schema_id", s.schemaId()).put("commit_kind", s.commitKind().name());
  }

  /**
   * With "root": true, the catalog inside Java's CachingCatalog (DelegateCatalog), which in 1.4.2
   * and 2.0.0 does not forward listConsumersPaged, resetConsumer (UnsupportedOperationException),
   * listFunctionsPaged (unpaged), listFunctionDetailsPaged (empty) and listFunctionsPagedGlobally
   * (UnsupportedOperationException) to the RESTCatalog it wraps.
   */
  private static Catalog root(Catalog c, JsonNode n) {
    return InteropDriver.flag(n, "root", false) ? org.apache.paimon.catalog.DelegateCatalog.rootCatalog(c) : c;
  }

  private static Object reflect(Catalog c, String method, Class<?>[] types, Object... args) throws Exception {
    return c.getClass().getMethod(method, types).invoke(c, args);
  }

  private static void call(Catalog c, JsonNode n, ObjectNode slot) throws Exception {
    String name = s(n, "call");
    slot.put("call", name);
    switch (name) {
      // ---- databases
      case "createDatabase":
        c.createDatabase(s(n, "database"), InteropDriver.flag(n, "ignore_if_exists", false), strMap(n.get("properties")));
        break;
      case "getDatabase": {
        Database d = c.getDatabase(s(n, "database"));
        slot.put("name", d.name()).put("comment", d.comment().orElse(null));
        slot.set("options", mapJson(d.options()));
        break;
      }
      case "listDatabasesPaged":
        paged(slot, c.listDatabasesPaged(max(n), s(n, "token"), s(n, "pattern")), x -> x);
        break;
      case "alterDatabase": {
        List<PropertyChange> changes = new ArrayList<>();
        strMap(n.get("set")).forEach((k, v) -> changes.add(PropertyChange.setProperty(k, v)));
        for (String k : InteropDriver.strings(n, "remove")) changes.add(PropertyChange.removeProperty(k));
        c.alterDatabase(s(n, "database"), changes, false);
        break;
      }
      case "dropDatabase":
        c.dropDatabase(s(n, "database"), false, InteropDriver.flag(n, "cascade", false));
        break;
      // ---- tables
      case "createTable": {
        Schema.Builder b = Schema.newBuilder();
        for (DataField f : fields(n.get("fields"))) b.column(f.name(), f.type());
        b.partitionKeys(InteropDriver.strings(n, "partition_keys"));
        b.primaryKey(InteropDriver.strings(n, "primary_keys"));
        b.options(strMap(n.get("options")));
        c.createTable(id(n, "table"), b.build(), InteropDriver.flag(n, "ignore_if_exists", false));
        break;
      }
      case "replaceTable": {  // 2.0+: Catalog.replaceTable(identifier, schema, ignoreIfNotExists)
        Schema.Builder b = Schema.newBuilder();
        for (DataField f : fields(n.get("fields"))) b.column(f.name(), f.type());
        b.partitionKeys(InteropDriver.strings(n, "partition_keys"));
        b.primaryKey(InteropDriver.strings(n, "primary_keys"));
        b.options(strMap(n.get("options")));
        Class<?>[] types = {Identifier.class, Schema.class, boolean.class};
        reflect(c, "replaceTable", types, id(n, "table"), b.build(), InteropDriver.flag(n, "ignore_if_not_exists", false));
        break;
      }
      case "getTable":
        table(slot, c.getTable(id(n, "table")));
        break;
      case "getTableById":  // "id", or "id_of": the id getTable gives that table
        table(slot, c.getTableById(n.hasNonNull("id_of") ? c.getTable(id(n, "id_of")).uuid() : s(n, "id")));
        break;
      case "listTablesPaged":
        paged(slot, c.listTablesPaged(s(n, "database"), max(n), s(n, "token"), s(n, "pattern"), s(n, "type")), x -> x);
        break;
      case "listTableDetailsPaged":
        paged(slot, c.listTableDetailsPaged(s(n, "database"), max(n), s(n, "token"), s(n, "pattern"), s(n, "type")), Table::name);
        break;
      case "listTablesPagedGlobally":
        paged(slot, c.listTablesPagedGlobally(s(n, "database_pattern"), s(n, "pattern"), max(n), s(n, "token")), Identifier::getFullName);
        break;
      case "renameTable":
        c.renameTable(id(n, "from"), id(n, "to"), false);
        break;
      case "alterTable":
        c.alterTable(id(n, "table"), wires(n.get("changes"), SchemaChange.class), false);
        break;
      case "registerTable":
        c.registerTable(id(n, "table"), s(n, "path"));
        break;
      case "invalidateTable":  // CachingCatalog drops its copy (it keeps one across rollbackSchema)
        c.invalidateTable(id(n, "table"));
        break;
      case "dropTable":
        c.dropTable(id(n, "table"), InteropDriver.flag(n, "ignore_if_not_exists", false));
        break;
      case "authTableQuery": {
        List<String> select = n.hasNonNull("select") ? InteropDriver.strings(n, "select") : null;
        TableQueryAuthResult r = c.authTableQuery(id(n, "table"), select);
        slot.set("filter", InteropDriver.JSON.valueToTree(r.filter()));
        slot.set("column_masking", InteropDriver.JSON.valueToTree(r.columnMasking()));
        break;
      }
      // ---- snapshots, rollback
      case "loadSnapshot": {
        Optional<TableSnapshot> ts = c.loadSnapshot(id(n, "table"));
        if (ts.isPresent()) {
          snapshot(slot, ts.get().snapshot());
          slot.put("record_count", ts.get().recordCount()).put("file_count", ts.get().fileCount());
        }
        slot.put("present", ts.isPresent());
        break;
      }
      case "loadSnapshotVersion": {
        Optional<Snapshot> sn = c.loadSnapshot(id(n, "table"), s(n, "version"));
        sn.ifPresent(x -> snapshot(slot, x));
        slot.put("present", sn.isPresent());
        break;
      }
      case "listSnapshotsPaged":
        paged(slot, c.listSnapshotsPaged(id(n, "table"), max(n), s(n, "token")), x -> String.valueOf(x.id()));
        break;
      case "rollbackTo": {
        Instant at = n.hasNonNull("tag") ? Instant.tag(s(n, "tag")) : Instant.snapshot(n.get("snapshot").asLong());
        Long from = n.hasNonNull("from_snapshot") ? n.get("from_snapshot").asLong() : null;
        c.rollbackTo(id(n, "table"), at, from);
        break;
      }
      case "rollbackSchema":
        c.rollbackSchema(id(n, "table"), n.get("schema_id").asLong());
        break;
      // ---- tags and branches
      case "createTag": {
        Long snap = n.hasNonNull("snapshot") ? n.get("snapshot").asLong() : null;
        c.createTag(id(n, "table"), s(n, "tag"), snap, s(n, "retained"), InteropDriver.flag(n, "ignore_if_exists", false));
        break;
      }
      case "getTag": {
        GetTagResponse t = c.getTag(id(n, "table"), s(n, "tag"));
        slot.put("tag", t.tagName()).put("snapshot", t.snapshot().id()).put("retained", t.tagTimeRetained());
        break;
      }
      case "listTagsPaged":
        paged(slot, c.listTagsPaged(id(n, "table"), max(n), s(n, "token"), s(n, "prefix")), x -> x);
        break;
      case "deleteTag":
        c.deleteTag(id(n, "table"), s(n, "tag"));
        break;
      case "createBranch":
        c.createBranch(id(n, "table"), s(n, "branch"), s(n, "from_tag"));
        break;
      case "listBranches":
        slot.set("items", InteropDriver.JSON.valueToTree(new java.util.TreeSet<>(c.listBranches(id(n, "table")))));
        break;
      case "fastForward":
        c.fastForward(id(n, "table"), s(n, "branch"));
        break;
      case "renameBranch":
        c.renameBranch(id(n, "table"), s(n, "branch"), s(n, "to"));
        break;
      case "dropBranch":
        c.dropBranch(id(n, "table"), s(n, "branch"));
        break;
      // ---- consumers
      case "listConsumersPaged":
        paged(slot, root(c, n).listConsumersPaged(id(n, "table"), max(n), s(n, "token")), (ConsumerInfo x) -> x.getConsumerId() + "=" + x.getNextSnapshot());
        break;
      case "resetConsumer": {
        Long next = n.hasNonNull("next_snapshot") ? n.get("next_snapshot").asLong() : null;
        root(c, n).resetConsumer(id(n, "table"), s(n, "consumer"), next);
        break;
      }
      // ---- partitions
      case "listPartitionsPaged": {
        PagedList<Partition> page = c.listPartitionsPaged(id(n, "table"), max(n), s(n, "token"), s(n, "pattern"));
        partitions(slot, page.getElements());
        slot.put("next", page.getNextPageToken());
        break;
      }
      case "listPartitionsByNames":
        partitions(slot, c.listPartitionsByNames(id(n, "table"), specs(n)));
        break;
      case "listPartitionsByFilterPaged": {  // 2.0+: partition key `field` = `value`
        Identifier t = id(n, "table");
        RowType rt = c.getTable(t).rowType();
        List<String> keys = c.getTable(t).partitionKeys();
        RowType pt = rt.project(keys);
        int idx = pt.getFieldIndex(s(n, "field"));
        Predicate p = new PredicateBuilder(pt).equal(idx, org.apache.paimon.data.BinaryString.fromString(s(n, "value")));
        Class<?>[] types = {Identifier.class, Predicate.class, Integer.class, String.class, String.class};
        @SuppressWarnings("unchecked")
        PagedList<Partition> page = (PagedList<Partition>) reflect(c, "listPartitionsByFilterPaged", types, t, p, max(n), s(n, "token"), s(n, "pattern"));
        partitions(slot, page.getElements());
        slot.put("next", page.getNextPageToken());
        break;
      }
      case "createPartitions":
        c.createPartitions(id(n, "table"), specs(n));
        break;
      case "dropPartitions":
        c.dropPartitions(id(n, "table"), specs(n));
        break;
      case "markDonePartitions":
        c.markDonePartitions(id(n, "table"), specs(n));
        break;
      // ---- views
      case "createView": {  // the view's parts, or "schema": a ViewSchema JSON as Paimon stores it
        Identifier v = id(n, "view");
        View view;
        if (n.hasNonNull("schema")) {
          ViewSchema vs = wire(n.get("schema"), ViewSchema.class);
          view = new ViewImpl(v, vs.fields(), vs.query(), vs.dialects(), vs.comment(), vs.options());
        } else {
          view = new ViewImpl(v, fields(n.get("fields")), s(n, "query"), strMap(n.get("dialects")), s(n, "comment"), strMap(n.get("options")));
        }
        c.createView(v, view, InteropDriver.flag(n, "ignore_if_exists", false));
        break;
      }
      case "getView":
        view(slot, c.getView(id(n, "view")));
        break;
      case "listViewsPaged":
        paged(slot, c.listViewsPaged(s(n, "database"), max(n), s(n, "token"), s(n, "pattern")), x -> x);
        break;
      case "listViews":
        slot.set("items", InteropDriver.JSON.valueToTree(c.listViews(s(n, "database"))));
        break;
      case "listViewDetailsPaged": {  // the names in "items", each view in full in "views"
        PagedList<View> page = c.listViewDetailsPaged(s(n, "database"), max(n), s(n, "token"), s(n, "pattern"));
        paged(slot, page, View::name);
        ArrayNode views = slot.putArray("views");
        for (View v : page.getElements()) view(views.addObject(), v);
        break;
      }
      case "listViewsPagedGlobally":
        paged(slot, c.listViewsPagedGlobally(s(n, "database_pattern"), s(n, "pattern"), max(n), s(n, "token")), Identifier::getFullName);
        break;
      case "alterView":
        c.alterView(id(n, "view"), wires(n.get("changes"), ViewChange.class), false);
        break;
      case "renameView":
        c.renameView(id(n, "from"), id(n, "to"), false);
        break;
      case "dropView":
        c.dropView(id(n, "view"), InteropDriver.flag(n, "ignore_if_not_exists", false));
        break;
      // ---- functions
      case "createFunction": {
        Identifier f = id(n, "function");
        Map<String, FunctionDefinition> defs = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : iterable(n.get("definitions").fields())) {
          defs.put(e.getKey(), wire(e.getValue(), FunctionDefinition.class));
        }
        Function fn = new FunctionImpl(f, fields(n.get("input")), fields(n.get("returns")),
            InteropDriver.flag(n, "deterministic", true), defs, s(n, "comment"), strMap(n.get("options")));
        c.createFunction(f, fn, InteropDriver.flag(n, "ignore_if_exists", false));
        break;
      }
      case "getFunction":
        function(slot, c.getFunction(id(n, "function")));
        break;
      case "listFunctionsPaged":
        paged(slot, root(c, n).listFunctionsPaged(s(n, "database"), max(n), s(n, "token"), s(n, "pattern")), x -> x);
        break;
      case "listFunctionDetailsPaged":
        paged(slot, root(c, n).listFunctionDetailsPaged(s(n, "database"), max(n), s(n, "token"), s(n, "pattern")), Function::name);
        break;
      case "listFunctionsPagedGlobally":
        paged(slot, root(c, n).listFunctionsPagedGlobally(s(n, "database_pattern"), s(n, "pattern"), max(n), s(n, "token")), Identifier::getFullName);
        break;
      case "alterFunction":
        c.alterFunction(id(n, "function"), wires(n.get("changes"), FunctionChange.class), false);
        break;
      case "dropFunction":
        c.dropFunction(id(n, "function"), InteropDriver.flag(n, "ignore_if_not_exists", false));
        break;
      default:
        throw new IllegalArgumentException("unknown catalog call: " + name);
    }
  }

  private static <T> Iterable<T> iterable(java.util.Iterator<T> it) {
    return () -> it;
  }
}
