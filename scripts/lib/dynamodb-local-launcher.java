import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.server.AbstractNetworkConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;
import software.amazon.dynamodb.services.local.shared.access.sqlite.SQLiteDBAccess;
import software.amazon.dynamodb.services.local.shared.access.sqlite.SQLiteDBAccessJob;
import software.amazon.dynamodb.services.local.shared.access.sqlite.TableSchemaInfo;
import software.amazon.dynamodb.services.local.shared.mapper.DynamoDbObjectMapper;
import sun.misc.Unsafe;

/**
 * Starts DynamoDB Local (same command-line options as its own main) listening on
 * loopback only (contract §10): it holds every tenant's data and accepts any
 * credentials, and it has no host option — DynamoDBProxyServer builds a Jetty
 * Server(port), which binds every interface. A single-file program: run it as
 * source (`java -cp DynamoDBLocal.jar dynamodb-local-launcher.java ARGS`) or, as
 * scripts/lib/dynamodb-local.ts does, compiled once with javac and cached.
 * Unlike ServerRunner.main it configures no telemetry, so nothing leaves the machine.
 * It also keeps the tables' parsed schemas (SchemaCache below), when it can.
 * Any surprise in the jar's internals stops the launch rather than binding wide.
 */
class DynamoDbLocalLauncher {
  private static final String HOST = "127.0.0.1";

  public static void main(String[] args) throws Exception {
    try {
      SchemaCache.install();
    } catch (Exception | LinkageError e) {
      // Only speed depends on it (another jar or a JDK without sun.misc.Unsafe): serve without it.
      System.err.println("DynamoDB Local serves without its schema cache: " + e);
    }
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    if (proxy == null) throw new IllegalStateException("DynamoDB Local did not accept the arguments");
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    Connector[] connectors = server.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind");
    for (Connector connector : connectors) {
      if (!(connector instanceof AbstractNetworkConnector network)) {
        throw new IllegalStateException("Unexpected DynamoDB Local connector " + connector.getClass().getName());
      }
      network.setHost(HOST);
    }
    try {
      // safeStart, unlike start, reports a bind failure instead of idling without a listener.
      proxy.safeStart();
    } catch (Exception e) {
      System.err.println("Could not start DynamoDB Local on " + HOST + ": " + e);
      System.exit(1);
    }
  }
}

/**
 * DynamoDB Local reads a table's schema (a JSON blob in its metadata table) and parses it with Jackson for every
 * item it reads or writes: in a bulk import profiled with JFR that parse was 47 % of the one SQLite thread on which
 * DynamoDB Local runs every request. This mapper keeps each parsed schema by its exact bytes and hands out a copy
 * with fresh containers: a caller that changes its schema (UpdateTable, UpdateTimeToLive) changes only its copy, and
 * the schema it writes back has other bytes. It replaces the jar's two static mappers that read schemas; nothing
 * else changes.
 */
class SchemaCache extends DynamoDbObjectMapper {
  /** Schemas by the length of their bytes: hashing a blob of several KB cost more than comparing it. */
  private static final Map<Integer, List<Parsed>> PARSED = new ConcurrentHashMap<>();
  private static final int MAX_SCHEMAS = 64;

  private record Parsed(byte[] bytes, TableSchemaInfo schema) {}
  private static final Field[] FIELDS = TableSchemaInfo.class.getDeclaredFields();

  static void install() throws Exception {
    for (Field field : FIELDS) {
      if (Modifier.isStatic(field.getModifiers())) continue;
      field.setAccessible(true);
      Class<?> type = field.getType();
      if (type != List.class && type != Map.class && type != String.class) {
        throw new IllegalStateException("Unexpected TableSchemaInfo field " + field);
      }
    }
    Field theUnsafe = Unsafe.class.getDeclaredField("theUnsafe");
    theUnsafe.setAccessible(true);
    Unsafe unsafe = (Unsafe) theUnsafe.get(null);
    List<Field> mappers = new ArrayList<>();
    for (Class<?> owner : new Class<?>[] {SQLiteDBAccessJob.class, SQLiteDBAccess.class}) {
      // Initialized first, so its own static initializer cannot overwrite the replacement later.
      Class.forName(owner.getName(), true, owner.getClassLoader());
      Field field = owner.getDeclaredField("MAPPER");
      if (field.getType() != DynamoDbObjectMapper.class || !Modifier.isStatic(field.getModifiers())) {
        throw new IllegalStateException("Unexpected mapper field " + field);
      }
      mappers.add(field);
    }
    // Both found before either is replaced: the jar runs with its own mappers or with this one, never half.
    SchemaCache mapper = new SchemaCache();
    for (Field field : mappers) {
      unsafe.putObject(unsafe.staticFieldBase(field), unsafe.staticFieldOffset(field), mapper);
    }
  }

  @Override
  public <T> T readValue(byte[] src, Class<T> valueType) throws IOException {
    if (valueType != TableSchemaInfo.class) return super.readValue(src, valueType);
    List<Parsed> sameLength = PARSED.get(src.length);
    if (sameLength != null) {
      for (Parsed parsed : sameLength) {
        if (Arrays.equals(parsed.bytes(), src)) return valueType.cast(copyOf(parsed.schema()));
      }
    }
    TableSchemaInfo schema = (TableSchemaInfo) super.readValue(src, valueType);
    if (PARSED.size() >= MAX_SCHEMAS) PARSED.clear();
    PARSED.computeIfAbsent(src.length, (length) -> new CopyOnWriteArrayList<>()).add(new Parsed(src.clone(), copyOf(schema)));
    return valueType.cast(schema);
  }

  /** Every list and map copied, lists of lists too; their elements are never changed in place. */
  private static TableSchemaInfo copyOf(TableSchemaInfo source) {
    TableSchemaInfo copy = new TableSchemaInfo();
    try {
      for (Field field : FIELDS) {
        if (Modifier.isStatic(field.getModifiers())) continue;
        field.set(copy, copied(field.get(source)));
      }
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
    return copy;
  }

  private static Object copied(Object value) {
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      for (Object element : list) out.add(element instanceof List<?> ? copied(element) : element);
      return out;
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> out = new HashMap<>();
      for (Map.Entry<?, ?> entry : map.entrySet()) out.put(entry.getKey(), copied(entry.getValue()));
      return out;
    }
    return value;
  }
}
