import java.lang.reflect.Field;
import org.eclipse.jetty.server.AbstractNetworkConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Starts DynamoDB Local (same command-line options as its own main) listening on
 * loopback only (contract §10): it holds every tenant's data and accepts any
 * credentials, and it has no host option — DynamoDBProxyServer builds a Jetty
 * Server(port), which binds every interface. A single-file program: run it as
 * source (`java -cp DynamoDBLocal.jar dynamodb-local-launcher.java ARGS`) or, as
 * scripts/lib/dynamodb-local.ts does, compiled once with javac and cached.
 * Unlike ServerRunner.main it configures no telemetry, so nothing leaves the machine.
 * Any surprise in the jar's internals stops the launch rather than binding wide.
 */
class DynamoDbLocalLauncher {
  private static final String HOST = "127.0.0.1";

  public static void main(String[] args) throws Exception {
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
