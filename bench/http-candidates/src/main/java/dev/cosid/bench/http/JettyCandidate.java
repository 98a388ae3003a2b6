package dev.cosid.bench.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/** Jetty 12 core (no servlets), its default thread pool. */
final class JettyCandidate {
    static void start(int port) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract.NonBlocking() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                byte[] body = Candidates.answer(request.getHttpURI().getPath(), request.getHttpURI().getQuery());
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
                if (body == null) {
                    response.setStatus(404);
                    callback.succeeded();
                } else {
                    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
                    response.write(true, ByteBuffer.wrap(body), callback);
                }
                return true;
            }
        });
        server.start();
    }
}
