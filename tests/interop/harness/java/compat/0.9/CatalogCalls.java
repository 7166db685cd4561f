import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/** The op "catalog_calls" needs Java 1.4+'s Catalog API (views, functions, paging, REST); 0.9 refuses it. */
final class CatalogCalls {
  private CatalogCalls() {}

  static ObjectNode run(JsonNode req) {
    throw new UnsupportedOperationException("catalog_calls needs Java Paimon 1.4 or newer");
  }
}
