package dev.cosid.bench.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/** Netty's HTTP/1.1 codec on NIO event loops, one per core. */
final class NettyCandidate {
    static void start(int port) throws Exception {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
        new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(8192),
                                new SimpleChannelInboundHandler<FullHttpRequest>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
                                        String uri = request.uri();
                                        int q = uri.indexOf('?');
                                        byte[] body = Candidates.answer(q < 0 ? uri : uri.substring(0, q),
                                                q < 0 ? null : uri.substring(q + 1));
                                        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                                                body == null ? HttpResponseStatus.NOT_FOUND : HttpResponseStatus.OK,
                                                body == null ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
                                        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
                                        HttpUtil.setContentLength(response, body == null ? 0 : body.length);
                                        HttpUtil.setKeepAlive(response, HttpUtil.isKeepAlive(request));
                                        ctx.writeAndFlush(response);
                                    }
                                });
                    }
                }).bind("127.0.0.1", port).sync();
    }
}
